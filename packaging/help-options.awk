# Reads the --help text of an `account` command (Boost.Program_options layout)
# and prints one line per option, tab-separated:
#   NAMES    the option's names, space-separated ("-o --output")
#   VALUE    none, required or optional (whether the option takes a value)
#   CHOICES  the values its description lists, space-separated, or "-"
#   TERM     the option as --help prints it before the description
#            ("-o [ --output ] arg", "--interval arg (=5)")
#   DESC     the description, continuation lines joined
# The man pages, the man page test, the bash completion and nothing else read
# --help, so this is the one place that knows its layout.
#
# With -v list=commands, reads `account --help` instead and prints the name of
# every command of its "commands:" section, one a line.
#
# With -v list=help2man, prints the --help text again with two spaces between
# every option's TERM and its description: Boost leaves one after the longest
# option of a command, and help2man needs two to tell them apart.
#
# Choices are read from descriptions of the forms "a, b, c or d (...)",
# "KEY: a (default), b, c" and "'a': ...": parenthesized remarks are dropped
# first. A description "KEY=VALUE,...: ... (a, b, c) ..." gives the choices
# "a= b= c=" (keys to assign, as in --fail-on METRIC=PCT,...).

function flush(   text, choices, m, list) {
  if (names == "") return
  text = desc
  gsub(/  +/, " ", text)  # continuation lines end in a space
  # "KEY=VALUE,...: ... (a, b, c) ...": a comma list of assignments whose keys
  # are the first parenthesized list; each choice is "key=".
  if (match(text, /^[A-Z]+=[A-Z]+,\.\.\.:/) &&
      match(text, /\([a-z][a-z0-9_-]*(, [a-z][a-z0-9_-]*)+\)/)) {
    choices = substr(text, RSTART + 1, RLENGTH - 2)
    gsub(/, /, "= ", choices)
    printf "%s\t%s\t%s\t%s\t%s\n", names, value, choices "=", term, desc
    names = ""
    return
  }
  while (gsub(/\([^()]*\)/, "", text) > 0) {}
  gsub(/ +,/, ",", text); gsub(/  +/, " ", text); sub(/ +$/, "", text)
  choices = ""
  if (value != "none") {
    word = "[+a-z][a-z0-9_+-]*"
    if (match(text, "^'" word "'")) {
      choices = substr(text, 2, RLENGTH - 2)
    } else if (match(text, "^" word "(, " word ")*( or " word ")")  ||
               match(text, "^" word "(, " word ")+")) {
      choices = substr(text, 1, RLENGTH)
    } else if (match(text, ": " word "(, " word ")*( or " word ")?$")) {
      choices = substr(text, RSTART + 2, RLENGTH - 2)
    }
    gsub(/,? or /, " ", choices); gsub(/, /, " ", choices)
  }
  if (choices == "") choices = "-"  # an empty field would vanish in `read`
  printf "%s\t%s\t%s\t%s\t%s\n", names, value, choices, term, desc
  names = ""
}

# Splits an option line ("  -o [ --output ] arg   append records to FILE") into
# names, value, term and desc (its first line).
function parse_option(line,   n, tok, i, t) {
  n = split(line, tok, " +")
  names = ""; value = "none"; term = ""; desc = ""
  for (i = 1; i <= n; i++) {
    t = tok[i]
    if (t == "") continue
    if (desc == "" && t ~ /^--?[A-Za-z0-9][-A-Za-z0-9]*$/) {
      names = names (names == "" ? "" : " ") t
    } else if (desc == "" && (t == "[" || t == "]" || t ~ /^\(=.*\)$/)) {
    } else if (desc == "" && t == "arg") {
      value = "required"
    } else if (desc == "" && t ~ /^\[=arg/) {
      value = "optional"
    } else {
      desc = desc (desc == "" ? "" : " ") t
      continue
    }
    term = term (term == "" ? "" : " ") t
  }
}

list == "commands" {
  if (/^[a-z]+:$/) in_commands = ($0 == "commands:")
  else if (in_commands && /^  [a-z]/) print $1
  next
}

list == "help2man" && /^  -/ {
  parse_option($0)
  print "  " term "  " desc
  next
}
list == "help2man" { print; next }

/^  -/ { flush(); parse_option($0); next }
# A continuation of the previous description: deeper indentation, no dash.
names != "" && /^   +[^ ]/ { line = $0; sub(/^ +/, "", line); desc = desc " " line; next }
{ flush() }
END { if (list == "") flush() }
