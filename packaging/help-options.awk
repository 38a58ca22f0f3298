# Reads the --help text of an `account` command (Boost.Program_options layout)
# and prints one line per option, tab-separated:
#   NAMES    the option's names, space-separated ("-o --output")
#   VALUE    none, required or optional (whether the option takes a value)
#   CHOICES  the values its description lists, space-separated, or "-"
#   DESC     the description, continuation lines joined
# The man page test, the bash completion and nothing else read --help, so this
# is the one place that knows its layout.
#
# With -v list=commands, reads `account --help` instead and prints the name of
# every command of its "commands:" section, one a line.
#
# Choices are read from descriptions of the forms "a, b, c or d (...)",
# "KEY: a (default), b, c" and "'a': ...": parenthesized remarks are dropped
# first.

function flush(   text, choices, m, list) {
  if (names == "") return
  text = desc
  while (gsub(/\([^()]*\)/, "", text) > 0) {}
  gsub(/ +,/, ",", text); gsub(/  +/, " ", text); sub(/ +$/, "", text)
  choices = ""
  if (value != "none") {
    word = "[+a-z][a-z0-9+-]*"
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
  printf "%s\t%s\t%s\t%s\n", names, value, choices, desc
  names = ""
}

list == "commands" {
  if (/^[a-z]+:$/) in_commands = ($0 == "commands:")
  else if (in_commands && /^  [a-z]/) print $1
  next
}

/^  -/ {
  flush()
  n = split($0, tok, " +")
  names = ""; value = "none"; desc = ""
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
    }
  }
  next
}
# A continuation of the previous description: deeper indentation, no dash.
names != "" && /^   +[^ ]/ { line = $0; sub(/^ +/, "", line); desc = desc " " line; next }
{ flush() }
END { if (list != "commands") flush() }
