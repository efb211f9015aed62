# bash completion for haloctl(1): verbs, options, node names from the profile, check ids.
# SPDX-License-Identifier: MIT
#
# Installed as "haloctl" in bash-completion's completionsdir, which loads it on the first <Tab> after
# "haloctl". It uses only bash builtins (no _init_completion), so it also works when sourced by hand.
# tests/packaging/test-completion.sh keeps the verb list equal to daemon/haloctl/haloctl.c's verb table. The
# check ids come from `haloctl check --list` (the registry, lib/check/check-registry.c).

_haloctl_verbs="validate check status verify reload plan apply unadopt env probe"
_haloctl_options="--json --node --only --undo --boot-unit --root --force --adopt --backend --cdi --format --slots --port --list --rebaseline --color --help --version"
# Options that take a value (the next word, or after "=").
_haloctl_options_arg="--node --only --undo --boot-unit --root --backend --color --format --slots --port"
# Verbs whose positional argument is a profile (probe takes [NODE] [PROFILE], in either order).
_haloctl_verbs_profile="validate check plan apply unadopt env probe"
# apply --only takes the parts that halod-helper.service writes, not check ids.
_haloctl_apply_parts="hosts. cdi networkd boot limits modules"
# apply --undo takes the parts whose files halod owns.
_haloctl_undo_parts="boot limits modules"

# The check ids without a name in them (kernel.cmdline; not link.<NAME>.mtu) and every id's prefix
# (kernel., profile), from `haloctl check --list` of the haloctl being completed: asked once a shell,
# as it is the same every time (again after a failure).
_haloctl_check_words() {
        local cmd=$1 id rest prefix
        [[ -n ${_haloctl_check_ids:-} ]] && return 0
        _haloctl_check_ids='' _haloctl_check_prefixes=''
        while read -r id rest; do
                [[ $id == *"<"* ]] || _haloctl_check_ids+=" $id"
                prefix=${id%%.*}
                [[ $id == *.* ]] && prefix+=.
                [[ " $_haloctl_check_prefixes " == *" $prefix "* ]] || _haloctl_check_prefixes+=" $prefix"
        done < <("$cmd" check --list 2>/dev/null)
}

# The keys of the profile's top-level "nodes:" mapping (block style, as halod.yaml(5) writes it, or
# one flow mapping on the same line), read with awk: running haloctl on every <Tab> would be too slow.
_haloctl_node_names() {
        local profile=$1
        [[ -r $profile && -f $profile ]] || return 0
        awk '
                function key(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]*:.*/, "", s); gsub(/["\047]/, "", s); return s }
                inside && /^[^ \t#]/ { inside = 0 }
                /^nodes:[ \t]*\{/ {
                        # nodes: { a: {...}, b: {...} } - the keys at brace depth 1.
                        line = $0; sub(/^nodes:[ \t]*\{/, "", line); depth = 1; word = ""
                        for (i = 1; i <= length(line) && depth > 0; i++) {
                                c = substr(line, i, 1)
                                if (c == "{" || c == "[") depth++
                                else if (c == "}" || c == "]") depth--
                                else if (depth == 1 && c == ":" && word != "") { print key(word); word = "" }
                                else if (depth == 1 && c == ",") word = ""
                                else if (depth == 1) word = word c
                        }
                        next
                }
                /^nodes:[ \t]*(#.*)?$/ { inside = 1; indent = -1; next }
                inside && /^[ \t]+[^ \t#]/ {
                        match($0, /^[ \t]+/)
                        if (indent < 0) indent = RLENGTH
                        if (RLENGTH == indent) print key($0)
                }
        ' "$profile" 2>/dev/null
}

_haloctl() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev='' word verb='' profile='' node='' i
        local -a positional=()

        # "--color=al" arrives as "--color" "=" "al" (COMP_WORDBREAKS has "=").
        if ((COMP_CWORD > 0)); then
                prev=${COMP_WORDS[COMP_CWORD - 1]}
        fi
        if [[ $cur == = ]]; then
                cur=
        elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
                prev=${COMP_WORDS[COMP_CWORD - 2]}
        fi

        # The verb is the first word that is neither an option nor an option's value.
        for ((i = 1; i < COMP_CWORD; i++)); do
                word=${COMP_WORDS[i]}
                if [[ " $_haloctl_options_arg " == *" $word "* ]]; then
                        # skip the value, and the "=" before it
                        [[ ${COMP_WORDS[i + 1]} == = ]] && i=$((i + 1))
                        i=$((i + 1))
                        continue
                fi
                [[ $word == -* || $word == = ]] && continue
                if [[ -z $verb ]]; then
                        verb=$word
                else
                        positional+=("$word")
                fi
        done

        # A profile named on the command line (else the default one); probe's NODE is the other word.
        for word in "${positional[@]}"; do
                # a literal ~/ (the shell expands it only when the command runs)
                # shellcheck disable=SC2088
                [[ $word == "~/"* ]] && word=$HOME/${word#"~/"}
                if [[ -z $profile && -f $word ]]; then
                        profile=$word
                else
                        node=$word
                fi
        done
        : "${profile:=/etc/halod/halod.yaml}"

        COMPREPLY=()
        case $prev in
        --color)
                mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur")
                return 0
                ;;
        --format)
                mapfile -t COMPREPLY < <(compgen -W "env hostfile llama-rpc ray" -- "$cur")
                return 0
                ;;
        --slots | --port)
                return 0
                ;;
        --backend)
                mapfile -t COMPREPLY < <(compgen -W "networkmanager networkd netlink" -- "$cur")
                return 0
                ;;
        --node)
                mapfile -t COMPREPLY < <(compgen -W "$(_haloctl_node_names "$profile")" -- "$cur")
                return 0
                ;;
        --root)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                return 0
                ;;
        --undo)
                local done_part='' last=$cur
                if [[ $cur == *,* ]]; then
                        done_part=${cur%,*},
                        last=${cur##*,}
                fi
                mapfile -t COMPREPLY < <(compgen -P "$done_part" -W "$_haloctl_undo_parts" -- "$last")
                return 0
                ;;
        --only)
                # a comma-separated list: complete its last element
                local done_part='' last=$cur words cmd=${COMP_WORDS[0]}
                command -v "$cmd" >/dev/null 2>&1 || cmd=haloctl
                _haloctl_check_words "$cmd"
                words=$_haloctl_check_prefixes
                if [[ $cur == *,* ]]; then
                        done_part=${cur%,*},
                        last=${cur##*,}
                fi
                [[ $last == *.* ]] && words+=" $_haloctl_check_ids"
                [[ " ${COMP_WORDS[*]} " == *" apply "* ]] && words=$_haloctl_apply_parts
                mapfile -t COMPREPLY < <(compgen -P "$done_part" -W "$words" -- "$last")
                # "kernel." is a prefix to continue, not a finished word
                [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *. ]] && compopt -o nospace 2>/dev/null
                return 0
                ;;
        esac

        if [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$_haloctl_options" -- "$cur")
                return 0
        fi
        if [[ -z $verb ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$_haloctl_verbs" -- "$cur")
                return 0
        fi
        if [[ " $_haloctl_verbs_profile " == *" $verb "* ]]; then
                # probe: a node name first, then the profile; the other verbs: the profile
                if [[ $verb == probe && -z $node ]]; then
                        mapfile -t COMPREPLY < <(compgen -W "$(_haloctl_node_names "$profile")" -- "$cur")
                fi
                compopt -o filenames 2>/dev/null
                mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$cur")
        fi
        return 0
}

complete -F _haloctl haloctl
