#!/bin/sh
# gen_manpage.sh KINETA — kineta(1) in roff, made from the binary's own help
# (`kineta --help` and `kineta CMD --help` for every command it lists), so
# the man page can never disagree with the program.  Used by `make install`.
set -eu
kineta=$1
esc() { sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\&'/" -e 's/-/\\-/g'; }
version=$("$kineta" --version | sed 's/^kineta //')
cat <<HEAD
.TH KINETA 1 "" "kineta $version" "User Commands"
.SH NAME
kineta \\- fast analysis of PyTorch profiler (Kineto) GPU traces
.SH SYNOPSIS
.B kineta
.I command
[\\fIoptions\\fR] \\fIPATH\\fR...
.SH DESCRIPTION
HEAD
"$kineta" --help | sed -n '/^PATH/,/^commands:/p' | sed '$d' | esc
echo ".SH COMMANDS"
commands=$("$kineta" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
for c in $commands; do
    echo ".SS $c"
    echo ".nf"
    "$kineta" "$c" --help | esc
    echo ".fi"
done
echo ".SH EXIT STATUS"
"$kineta" --help | grep '^exit codes' | esc
cat <<'TAIL'
.SH FILES
Reference: docs/ in the kineta source tree (architecture, kernels, timeline,
sqlite, python).
.SH SEE ALSO
.BR sqlite3 (1)
TAIL
