#!/usr/bin/env bash
# The HTML report in a real browser: Debian's chromium, headless, renders the report of a
# divergent generated pair and of an equivalent corpus pair; the DOM it built must hold the
# verdict (and the divergent node's name), the screenshot must be a real image, and the page must
# log no console error. Usage: render_in_chromium.sh SCALIFY CORPUS_DIR WORK_DIR
set -euo pipefail
scalify=$1 corpus=$2 work=$3
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "render_in_chromium: chromium is not installed (bash .ci/setup installs it)" >&2
  exit 1
fi
rm -rf "$work" && mkdir -p "$work"

render() {  # FILE NEEDLE...: dump the DOM, take a screenshot, look for each needle
  local page=$1 name
  name=$(basename "$page" .html)
  shift
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --enable-logging=stderr \
    --dump-dom "file://$page" >"$work/$name.dom" 2>"$work/$name.log"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --window-size=1200,1600 \
    --screenshot="$work/$name.png" "file://$page" >/dev/null 2>>"$work/$name.log"
  local size
  size=$(stat -c %s "$work/$name.png")
  ((size > 20000)) || { echo "FAIL: $name.png is $size bytes" >&2; exit 1; }
  if grep -q 'CONSOLE' "$work/$name.log"; then
    echo "FAIL: the page logged to the console:" >&2
    grep 'CONSOLE' "$work/$name.log" >&2
    exit 1
  fi
  for needle in "$@"; do
    grep -qF -- "$needle" "$work/$name.dom" || { echo "FAIL: '$needle' is not on $name" >&2; exit 1; }
  done
  echo "ok: $name ($size-byte screenshot)"
}

"$scalify" gen llama --preset tiny --tp 2 --bug missing-allreduce --out "$work/pair" >/dev/null
status=0
"$scalify" check "$work/pair/ref.hlo" "$work/pair/dist.hlo" --json \
  --report "$work/divergent.html" >"$work/divergent.json" || status=$?
((status == 1)) || { echo "FAIL: check exited $status, expected 1 (divergent)" >&2; exit 1; }
node=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["divergence"]["dist_node"])' \
  "$work/divergent.json")
render "$work/divergent.html" '<h1 id="verdict">divergent</h1>' "First divergence: <code>$node</code>" \
  "<svg"

"$scalify" check "$corpus/neuron_torchxla/linear3_fwd_single.hlo" \
  "$corpus/neuron_torchxla/linear3_fwd_spmd_megatron.hlo" --report "$work/equivalent.html" >/dev/null
render "$work/equivalent.html" '<h1 id="verdict">equivalent</h1>' 'by bijection'
