"""Write resources/i18n/memory_center_en.ts: the English plural forms, then compile.

English needs a translation file only for plurals ("1 memory", "2 memories"): every message
with %n gets a singular and a plural form. The messages are taken from the Chinese file (run
lupdate for it first, see fill_zh_CN.py).

Usage (repository root):
    .venv/bin/python resources/i18n/fill_en.py
    .venv/bin/pyside6-lrelease resources/i18n/memory_center_en.ts
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).parent
SOURCE = HERE / "memory_center_zh_CN.ts"
TARGET = HERE / "memory_center_en.ts"
# Plural words whose singular is not the word without its final "s".
SINGULAR = {"memories": "memory", "results": "result"}


def forms(source: str) -> tuple[str, str]:
    """(singular, plural) of an English text with %n: "(s)" is dropped or becomes "s"."""
    plural = source.replace("(s)", "s")
    singular = source.replace("(s)", "")
    for many, one in SINGULAR.items():
        singular = re.sub(rf"%n( [\w ]*?){many}\b", rf"%n\g<1>{one}", singular)
    return singular, plural


def build() -> int:
    root = ET.Element("TS", version="2.1", language="en")
    count = 0
    for context in ET.parse(SOURCE).getroot().iter("context"):
        name = context.findtext("name") or ""
        out = None
        for message in context.iter("message"):
            source = message.findtext("source") or ""
            if "%n" not in source:
                continue
            if out is None:
                out = ET.SubElement(root, "context")
                ET.SubElement(out, "name").text = name
            msg = ET.SubElement(out, "message", numerus="yes")
            ET.SubElement(msg, "source").text = source
            translation = ET.SubElement(msg, "translation")
            for form in forms(source):
                ET.SubElement(translation, "numerusform").text = form
            count += 1
    ET.indent(root)
    ET.ElementTree(root).write(TARGET, encoding="utf-8", xml_declaration=True)
    return count


if __name__ == "__main__":
    print(f"{build()} plural message(s) written")
