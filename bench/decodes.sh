#!/usr/bin/env bash
# Counts the JSON a write parses: for each kind of write of
# replayer's BenchmarkWriteKinds, the bytes its JSON decoders scan (both
# encoding/json's and sigs.k8s.io/json's, which apimachinery decodes with),
# the parses that scanned them, and the bytes over the configmap's size:
# how many decodes of the object a write costs.
#
# It builds the benchmark with coverage counters on the two decoders and
# reads the counts of their validating scan (checkValid: one step a byte,
# one call a parse). Two runs, of N1 and N2 writes, are subtracted, so the
# setup's parses cancel out.
#
#   bench/decodes.sh                       # every write kind
#   DECODES_KINDS='update apply' bench/decodes.sh
set -euo pipefail

cd "$(dirname "$0")/.."
mkdir -p bench/out
stamp=$(date +%Y%m%d-%H%M%S)
bin="bench/out/decodes-$stamp.test"
n1=${DECODES_N1:-200}
n2=${DECODES_N2:-1200}
kinds=${DECODES_KINDS:-create update merge-patch strategic-merge-patch apply}

sigs=sigs.k8s.io/json/internal/golang/encoding/json
(cd replayer && go test -c -o "../$bin" -covermode=count -coverpkg="encoding/json,$sigs" .)
sigsdir=$(cd replayer && go list -f '{{.Dir}}' "$sigs")
std=$(go env GOROOT)/src/encoding/json/scanner.go
# the line of checkValid's loop over the bytes in each decoder's scanner.go
loopline() { awk '/^func checkValid\(/ { f = 1 } f && /for _, c := range data/ { print NR; exit }' "$1"; }
stdline=$(loopline "$std")
sigsline=$(loopline "$sigsdir/scanner.go")
[[ -n $stdline && -n $sigsline ]] || { echo "decodes.sh: checkValid's loop not found in $std or $sigsdir/scanner.go" >&2; exit 1; }

# counts PROFILE: "bytes parses" scanned by both decoders' checkValid
counts() {
  awk -v std="encoding/json/scanner.go" -v sigs="$sigs/scanner.go" -v sl="$stdline" -v gl="$sigsline" '
    { split($1, a, ":"); split(a[2], r, "[.,]"); line = r[1]; col = r[2] }
    (a[1] == std && line == sl) || (a[1] == sigs && line == gl) { if (col > 1) bytes += $3 }
    (a[1] == std && line == sl - 2) || (a[1] == sigs && line == gl - 2) { parses += $3 }
    END { print bytes + 0, parses + 0 }' "$1"
}

printf '| write | JSON bytes parsed a write | parses a write | object (JSON bytes) | decodes of the object |\n|---|---|---|---|---|\n'
for k in $kinds; do
  declare -A got=()
  size=""
  for n in "$n1" "$n2"; do
    prof="bench/out/decodes-$stamp-$k-$n.cover"
    out=$("$bin" -test.run '^$' -test.bench "^BenchmarkWriteKinds\$/^$k\$" -test.benchtime "${n}x" -test.coverprofile "$prof")
    line=$(grep "^BenchmarkWriteKinds/$k-" <<<"$out") || { echo "decodes.sh: $k: no benchmark line in: $out" >&2; exit 1; }
    size=$(awk '{ for (i = 1; i < NF; i++) if ($(i+1) == "object-B") print $i }' <<<"$line")
    got[$n]=$(counts "$prof")
  done
  read -r b1 p1 <<<"${got[$n1]}"
  read -r b2 p2 <<<"${got[$n2]}"
  awk -v k="$k" -v db=$((b2 - b1)) -v dp=$((p2 - p1)) -v n=$((n2 - n1)) -v size="$size" \
    'BEGIN { printf "| %s | %.0f | %.2f | %.0f | %.2f |\n", k, db / n, dp / n, size, db / n / size }'
  unset got
done
echo "binary: $bin (profiles bench/out/decodes-$stamp-*.cover)" >&2
