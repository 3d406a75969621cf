"""`python3 -m kineta COMMAND ...` is the kineta CLI: the library the
package loaded holds the whole command line (kt_cli_main), so a pip install
needs no separate program on PATH."""
import ctypes as C
import os
import signal
import sys

from ._native import lib


def main(argv=None):
    args = [b"kineta"] + [os.fsencode(a) for a in (sys.argv[1:] if argv is None else argv)]
    # `python3 -m kineta ... | head` ends quietly, as the program does
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.stdout.flush()
    return lib.kt_cli_main(len(args), (C.c_char_p * (len(args) + 1))(*args, None))


if __name__ == "__main__":
    sys.exit(main())
