#!/usr/bin/env bash
# Checks report.html in a real browser: headless Chromium opens the report
# of a small run (configs/quick.yaml, and a CartPole run for a terminating
# task) from the file system, with no server, and every image must load
# (complete, with a natural size) and the results table must be there.
#
#   sudo scripts/check-report-html.sh [REPORT.html ...]   # or: sudo make check-report-html
#
# With arguments it checks those reports instead of making its own. It
# needs chromium: as root it installs Debian's package with apt-get when it
# is missing; otherwise it skips (exit 0) with a message. A screenshot of
# each report is left next to the checked copy (printed), to look at.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    browser=$(command -v chromium)
  else
    echo "skipped: no chromium (run as root to install Debian's package with apt-get)"
    exit 0
  fi
fi

work=$(mktemp -d)
trap 'rm -rf "$work/profile" "$work/smrl"' EXIT

reports=("$@")
if [ ${#reports[@]} -eq 0 ]; then
  go build -o "$work/smrl" ./cmd/smrl
  "$work/smrl" run -q --config configs/quick.yaml --out "$work/quick"
  SMRL_SEEDS=2 SMRL_EPISODES=4 SMRL_AGENTS=sm,oracle "$work/smrl" run -q --config configs/cartpole.yaml --out "$work/cartpole"
  reports=("$work/quick/report.html" "$work/cartpole/report.html")
fi

# The probe runs after the page and its images have loaded, and writes its
# verdict into the DOM, which --dump-dom prints.
probe='<script>
window.addEventListener("load", function () {
  var imgs = document.images, bad = [];
  for (var i = 0; i < imgs.length; i++) {
    if (!imgs[i].complete || imgs[i].naturalWidth === 0) bad.push(imgs[i].alt);
  }
  var rows = document.querySelectorAll("table tbody tr").length;
  // A table cut at the window (1280 px, issue 38): its box scrolls, or
  // the page does.
  var cut = 0, boxes = document.querySelectorAll(".table");
  for (var j = 0; j < boxes.length; j++) {
    if (boxes[j].scrollWidth > boxes[j].clientWidth + 1) cut++;
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) cut++;
  var p = document.createElement("pre");
  p.id = "smrl-check";
  p.textContent = "SMRL-" + "VERDICT images=" + imgs.length + " broken=" + bad.length + " [" + bad.join(" ") + "] rows=" + rows + " cut=" + cut;
  document.body.appendChild(p);
});
</script>'

status=0
for r in "${reports[@]}"; do
  name=$(basename "$(dirname "$r")")
  copy="$work/check-$name.html"
  # The copy is the report with the probe before </body>.
  awk -v probe="$probe" '/<\/body>/ { print probe } { print }' "$r" >"$copy"
  flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
    --disable-background-networking --disable-component-update --disable-sync
    --user-data-dir="$work/profile" --virtual-time-budget=10000 --window-size=1280,3000)
  dom=$(timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$copy" 2>/dev/null || true)
  timeout 120 "$browser" "${flags[@]}" --screenshot="$work/$name.png" "file://$copy" >/dev/null 2>&1 || true
  verdict=$(printf '%s\n' "$dom" | grep -o 'SMRL-VERDICT images=[0-9][^<]*' || true)
  echo "$r: ${verdict:-no verdict (the page did not load)}; screenshot $work/$name.png"
  case "$verdict" in
    *"broken=0 "*) ;;
    *) status=1 ;;
  esac
  case "$verdict" in
    *"images=0 "* | *"rows=0 "*) echo "  no images or no table rows"; status=1 ;;
  esac
  case "$verdict" in
    *" cut=0") ;;
    *) echo "  a table is cut at 1280 px (it scrolls, or the page does)"; status=1 ;;
  esac
done
exit $status
