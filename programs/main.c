/*
 * main.c — the kineta program: the CLI's dispatch (cli_main.c).
 */
#include "cli.h"

int main(int argc, char **argv)
{
    return kt_cli_main(argc, argv);
}
