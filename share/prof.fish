# fish completion for prof: verbs, then the verb's own options, both read
# from prof's help (so they never drift from the binary), as the bash
# script does, and file names after --db, -o and the like. Installed as
# share/fish/vendor_completions.d/prof.fish.

# The verb on the command line (after prof's own options), if any.
function __prof_verb
	set -l words (commandline -opc)
	set -e words[1]
	set -l skip 0
	for w in $words
		if test $skip -eq 1
			set skip 0
			continue
		end
		switch $w
			case --db
				set skip 1
			case '-*'
			case '*'
				echo $w
				return 0
		end
	end
	return 1
end

function __prof_verbs
	set -l prof (commandline -opc)[1]
	command $prof help 2>/dev/null |
		sed -n '/^Verbs:/,/^$/p' | awk 'NF > 1 && $1 != "Verbs:" {print $1}'
end

function __prof_options
	set -l prof (commandline -opc)[1]
	command $prof help (__prof_verb) 2>/dev/null |
		grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,' | sort -u
end

complete -c prof -f
complete -c prof -n 'not __prof_verb; and not string match -q -- "-*" (commandline -ct)' \
	-a '(__prof_verbs)'
complete -c prof -n 'not __prof_verb' -l db -r -F -d 'database'
complete -c prof -n 'not __prof_verb' -s v -d 'say more'
complete -c prof -n 'not __prof_verb' -l version -d 'the version'
complete -c prof -n 'not __prof_verb' -l help -d 'the verbs'
complete -c prof -n '__prof_verb; and string match -q -- "-*" (commandline -ct)' \
	-a '(__prof_options)'
complete -c prof -n '__prof_verb; and not string match -q -- "-*" (commandline -ct)' -F
for o in db output record-dump debug-dir sysfs resctrl
	complete -c prof -n '__prof_verb' -l $o -r -F
end
complete -c prof -n '__prof_verb' -s o -r -F
