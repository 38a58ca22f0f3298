# Copies upstream profile.proto (IN) to OUT with the lite runtime asked for:
# the message classes stay the same, without descriptors or reflection.
file(READ ${IN} proto)
file(WRITE ${OUT} "${proto}\noption optimize_for = LITE_RUNTIME;\n")
