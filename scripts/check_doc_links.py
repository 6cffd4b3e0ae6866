#!/usr/bin/env python3
"""Check relative links (file and #anchor) in README.md, CONTRIBUTING.md and docs/*.md."""
import glob, os, re, sys, unicodedata
root = sys.argv[1] if len(sys.argv) > 1 else '.'
files = [os.path.join(root, f) for f in ('README.md', 'CONTRIBUTING.md')] + sorted(glob.glob(os.path.join(root, 'docs', '*.md')))

def strip_code(text):
    out, fence = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fence = not fence; out.append(''); continue
        out.append('' if fence else re.sub(r'`[^`]*`', '', line))
    return out

def slug(h):
    h = h.strip().lower()
    h = re.sub(r'`', '', h)
    h = ''.join(c for c in h if c.isalnum() or c in ' -_' or unicodedata.category(c).startswith('L'))
    return h.replace(' ', '-')

anchors = {}
def anchors_of(path):
    if path not in anchors:
        seen, res, fence = {}, set(), False
        for line in open(path, encoding='utf-8').read().split('\n'):
            if line.lstrip().startswith('```'): fence = not fence; continue
            m = None if fence else re.match(r'#{1,6}\s+(.*)', line)
            if m:
                s = slug(m.group(1)); n = seen.get(s, 0); seen[s] = n + 1
                res.add(s if n == 0 else f'{s}-{n}')
        anchors[path] = res
    return anchors[path]

bad = total = 0
for f in files:
    for no, line in enumerate(strip_code(open(f, encoding='utf-8').read()), 1):
        for m in re.finditer(r'\]\(([^)\s]+)\)', line):
            t = m.group(1)
            if re.match(r'[a-z]+:', t): continue
            total += 1
            path, _, frag = t.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(target):
                bad += 1; print(f'{os.path.relpath(f, root)}:{no}: missing file {t}'); continue
            if frag and target.endswith('.md') and frag not in anchors_of(target):
                bad += 1; print(f'{os.path.relpath(f, root)}:{no}: missing anchor {t}')
print(f'{total} relative links in {len(files)} files, {bad} broken')
sys.exit(1 if bad else 0)
