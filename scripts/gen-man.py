#!/usr/bin/env python3
"""Writes a man page for a swift-argument-parser command from its own command tree.

    scripts/gen-man.py BINARY SECTION > NAME.SECTION

The tree comes from `BINARY --experimental-dump-help` (swift-argument-parser's ToolInfo JSON), so the page says
exactly what the binary's --help says: commands, options, defaults, the discussion (exit statuses). Used by
scripts/install.sh; checked by InstalledDocsTests.
"""
import json
import subprocess
import sys
from datetime import date


def esc(text: str) -> str:
    """roff-safe text: backslashes doubled, a leading dot or quote neutralised, hyphens kept literal."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line[:1] in (".", "'") else line for line in text.split("\n"))


def flag_names(arg: dict) -> str:
    names = []
    for n in arg.get("names", []):
        names.append(("-" if n["kind"] == "short" else "--") + n["name"])
    return ", ".join(names)


def argument_lines(args: list) -> list:
    out = []
    for a in args:
        if not a.get("shouldDisplay", True):
            continue
        if a["kind"] == "positional":
            head = "\\fI" + esc(a.get("valueName", "value")) + "\\fR" + ("..." if a.get("isRepeating") else "")
        else:
            head = "\\fB" + esc(flag_names(a)) + "\\fR"
            if a["kind"] == "option":
                head += " \\fI" + esc(a.get("valueName", "value")) + "\\fR"
        text = a.get("abstract", "")
        if a.get("defaultValue"):
            text += " (default: " + a["defaultValue"] + ")"
        if a.get("allValues"):
            text += " Values: " + ", ".join(a["allValues"]) + "."
        out += [".TP", head, esc(text)]
    return out


def page(tool: dict, section: str, version: str) -> str:
    cmd = tool["command"]
    name = cmd["commandName"]
    subs = [s for s in cmd.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]
    lines = ['.TH %s %s "%s" "%s" "heartd"' % (name.upper(), section, date.today().isoformat(), esc(version)),
             ".SH NAME", "%s \\- %s" % (name, esc(cmd.get("abstract", ""))),
             ".SH SYNOPSIS", "\\fB%s\\fR %s[\\fIoptions\\fR]" % (name, "\\fIcommand\\fR " if subs else "")]
    lines += [".SH DESCRIPTION", esc(cmd.get("abstract", ""))]
    if cmd.get("discussion"):
        lines += [".PP", esc(cmd["discussion"])]
    root_args = argument_lines(cmd.get("arguments", []))
    if root_args:
        lines += [".SH OPTIONS"] + root_args
    if subs:
        lines.append(".SH COMMANDS")
        for s in subs:
            lines += [".SS %s %s" % (name, s["commandName"]), esc(s.get("abstract", ""))]
            if s.get("discussion"):
                lines += [".PP", esc(s["discussion"])]
            lines += argument_lines(s.get("arguments", []))
    lines += [".SH SEE ALSO", "heartd(8), heartctl(1); /usr/local/share/doc/heartd"]
    return "\n".join(lines) + "\n"


def main() -> None:
    binary, section = sys.argv[1], sys.argv[2]
    tool = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True).stdout)
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    sys.stdout.write(page(tool, section, version))


if __name__ == "__main__":
    main()
