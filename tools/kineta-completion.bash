# bash completion for kineta — installed as
# $(PREFIX)/share/bash-completion/completions/kineta.
# Commands and options are read from the binary's own --help at completion
# time, so they are always the installed version's.
_kineta()
{
    local cur prev words cword
    _init_completion || return
    if [[ $cword -eq 1 ]]; then
        local cmds
        cmds=$(kineta --help 2>/dev/null | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
        COMPREPLY=($(compgen -W "$cmds help" -- "$cur"))
        return
    fi
    case $prev in
        --format) COMPREPLY=($(compgen -W "table csv json" -- "$cur")); return ;;
        --table)
            local tables
            tables=$(kineta "${words[1]}" --help 2>/dev/null | sed -n 's/^tables: //p')
            COMPREPLY=($(compgen -W "$tables" -- "$cur"))
            return ;;
        -o|--sqlite|--rules|--device-spec) _filedir; return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$(kineta "${words[1]}" --help 2>/dev/null | grep -oE '^  +(-[a-z], )?--?[a-z][a-z0-9-]*' | grep -oE -- '--?[a-z][a-z0-9-]*$')
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    _filedir '@(json|gz)'
} && complete -F _kineta kineta
