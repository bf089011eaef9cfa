# SPDX-License-Identifier: MIT
# bash completion for ornic-decode, ornic-pcapgen, ornic-bench, ornic-examples,
# ornic-bitmap-sim and ornic-mutate. The options are read from the program's
# own --help each time (lines that start with an option, as README.md "Command-line
# conventions" lays them out), so the completion is always the installed
# program's and there is no second list to keep in step. Installed once per
# program name into share/bash-completion/completions, where bash-completion
# looks a command up by its name.

# "OPTION ARG" per option of PROG's --help: ARG is the value's name (FILE,
# N, EXPR, ...), empty for a flag.
_ornic_tools_options() {
  # An option line: "  -x, --long ARG  text" or "      --long  text". One
  # space before ARG, two or more before the description (mawk: no {m,n}).
  "$1" --help 2>/dev/null | awk '
    /^ +-/ {
      line = $0; sub(/^ +/, "", line)
      if (length($0) - length(line) > 8) next
      n = 0; arg = ""
      while (match(line, /^--?[A-Za-z0-9][A-Za-z0-9-]*/)) {
        opt[++n] = substr(line, 1, RLENGTH); line = substr(line, RLENGTH + 1)
        if (substr(line, 1, 2) == ", ") { line = substr(line, 3); continue }
        if (line ~ /^ [^ ]/) { arg = substr(line, 2); sub(/ .*/, "", arg) }
        break
      }
      for (k = 1; k <= n; k++) print opt[k], arg
    }'
}

# Example names of ornic-examples: the lines after "NAME is one of:".
_ornic_tools_examples() {
  "$1" --help 2>/dev/null | awk '/^NAME is one of:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }'
}

# Values for OPT (whose value is named ARG) of PROG.
_ornic_tools_values() {
  local prog=$1 opt=$2 arg=$3 cur=$4
  case $opt in
  -i | --interface)
    COMPREPLY=($(compgen -W "any $(ls /sys/class/net 2>/dev/null)" -- "$cur"))
    return ;;
  -p | --profile)
    if [[ $prog == ornic-pcapgen ]]; then
      COMPREPLY=($(compgen -W "$("$prog" --list-profiles 2>/dev/null | cut -f1)" -- "$cur"))
      return
    fi ;;
  esac
  case $arg in
  *FILE* | *.svg) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
  *\|*) COMPREPLY=($(compgen -W "${arg//|/ }" -- "$cur")) ;; # on|off, N|auto|off
  *) COMPREPLY=() ;; # a number or an expression: nothing to offer
  esac
}

_ornic_tools() {
  local prog=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  local opts line o a
  opts=$(_ornic_tools_options "$prog")
  # The value of the option before the cursor, when it takes one.
  while read -r o a; do
    if [[ -n $a && $prev == "$o" ]]; then
      _ornic_tools_values "$prog" "$o" "$a" "$cur"
      return
    fi
  done <<<"$opts"
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(cut -d' ' -f1 <<<"$opts")" -- "$cur"))
  elif [[ $prog == ornic-examples ]]; then
    COMPREPLY=($(compgen -W "$(_ornic_tools_examples "$prog")" -- "$cur"))
  elif [[ $prog == ornic-decode ]]; then
    COMPREPLY=($(compgen -f -- "$cur")) # the capture
    compopt -o filenames 2>/dev/null
  fi
}

complete -F _ornic_tools ornic-decode ornic-pcapgen ornic-bench ornic-examples ornic-bitmap-sim ornic-mutate
