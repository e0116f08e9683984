"""Prints an example of a Markdown document: the fenced code block after the
line `<!-- example: NAME -->`, or with --output the indented block after the
next "prints:" line (what the example is documented to print). A missing
example or output is an error, so the test fails when the docs lose one."""
import sys


def main(argv):
    output = "--output" in argv
    argv = [a for a in argv if a != "--output"]
    if len(argv) != 3:
        sys.exit("usage: doc-example.py [--output] DOC NAME")
    lines = open(argv[1], encoding="utf-8").read().split("\n")
    marker = "<!-- example: %s -->" % argv[2]
    try:
        i = lines.index(marker) + 1
    except ValueError:
        sys.exit("%s: no '%s'" % (argv[1], marker))
    if not lines[i].startswith("```"):
        sys.exit("%s: no code block after '%s'" % (argv[1], marker))
    end = lines.index("```", i + 1)
    if not output:
        print("\n".join(lines[i + 1:end]))
        return
    j = next((j for j in range(end, len(lines))
              if lines[j].endswith("prints:")), None)
    if j is None:
        sys.exit("%s: no 'prints:' after example %s" % (argv[1], argv[2]))
    j += 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    block = []
    while j < len(lines) and lines[j].startswith("    "):
        block.append(lines[j][4:])
        j += 1
    if not block:
        sys.exit("%s: empty output of example %s" % (argv[1], argv[2]))
    print("\n".join(block))


main(sys.argv)
