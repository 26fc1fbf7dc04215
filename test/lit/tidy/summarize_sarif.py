"""Prints a SARIF log one result per line, checking that each location's
region matches the source text and that each fix applies: the line of the
result after its fix is printed as `fixed: ...` (for single-line sites).
The first artifact's text is the file given; other artifacts (headers) are
read from their URIs, relative to the current directory. A fix that also
edits other files prints `also edits: <uri>` for each."""
import json
import sys

log = json.load(open(sys.argv[1]))
run = log["runs"][0]
main_uri = run["artifacts"][0]["location"]["uri"]
texts = {main_uri: open(sys.argv[2]).read()}


def text_of(uri):
    if uri not in texts:
        texts[uri] = open(uri).read()
    return texts[uri]


rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
print(f"version {log['version']} tool {run['tool']['driver']['name']} rules {','.join(rules)}")
if len(run["artifacts"]) > 1:
    print("artifacts " + " ".join(a["location"]["uri"] for a in run["artifacts"]))
for r in run["results"]:
    assert rules[r["ruleIndex"]] == r["ruleId"], r
    loc = r["locations"][0]["physicalLocation"]
    uri = loc["artifactLocation"]["uri"]
    assert run["artifacts"][loc["artifactLocation"]["index"]]["location"]["uri"] == uri
    source = text_of(uri)
    lines = source.split("\n")
    reg = loc["region"]
    text = source[reg["charOffset"]:reg["charOffset"] + reg["charLength"]]
    line = lines[reg["startLine"] - 1]
    col = reg["startColumn"]
    assert line[col - 1:col - 1 + len(text)] == text, (line, col, text)
    fixes = r.get("fixes", [])
    desc = fixes[0]["description"]["text"] if fixes else ""
    print(f"result {r['ruleId']} {r['level']} {loc['artifactLocation']['uri']}:"
          f"{reg['startLine']}:{col} '{text}' '{r['message']['text']}' "
          f"related={len(r.get('relatedLocations', []))} fix='{desc}'")
    if fixes:
        changes = fixes[0]["artifactChanges"]
        for c in changes:
            if c["artifactLocation"]["uri"] != uri:
                print(f"also edits: {c['artifactLocation']['uri']}")
        edits = [e for c in changes if c["artifactLocation"]["uri"] == uri
                 for e in c["replacements"]]
        out = source
        for e in sorted(edits, key=lambda e: -e["deletedRegion"]["charOffset"]):
            d = e["deletedRegion"]
            out = out[:d["charOffset"]] + e.get("insertedContent", {}).get("text", "") + \
                out[d["charOffset"] + d["charLength"]:]
        # The line of the result in the fixed text (insertions above it
        # shift it; find it by its unchanged prefix).
        prefix = line[:col - 1]
        fixed = [l for l in out.split("\n") if l.startswith(prefix) and l != line
                 and l.strip() and prefix.strip()]
        if fixed:
            print("fixed: " + fixed[0].strip())
