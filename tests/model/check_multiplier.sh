#!/bin/sh
# usage: check_multiplier.sh COMMAND...
# Runs `tetrad advise ...` (without --results) and passes when every ranking
# line's iteration multiplier equals the formula of docs/convergence.md for
# the constants the line prints (ω, δ, H, τ, κ or λ; n, s), within the printed
# precision, and its time to target is its time per iteration × that
# multiplier; each family (BSP, unbiased, error feedback, Local SGD,
# staleness, D-PSGD) must appear at least once.
export LC_ALL=C
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "check_multiplier: FAIL: exit status $status"
  exit 1
fi
value() {  # value NAME LINE: the number after "NAME = " in LINE
  printf '%s\n' "$2" | sed -n "s/.*$1 = \([0-9.eE+-]*\).*/\1/p" | head -n 1
}
bad=0
seen=""
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$output" | grep -E '^ *[0-9]+ +[0-9]+\.[0-9]+ ms ' | grep -v ' × ? iterations' >"$tmp"
while IFS= read -r line; do
  total=$(printf '%s\n' "$line" | awk '{ print $2 }')
  perIter=$(printf '%s\n' "$line" | sed -n 's/.* = \([0-9.]*\) ms\/iter .*/\1/p')
  m=$(printf '%s\n' "$line" | sed -n 's/.* ms\/iter × \([0-9.eE+-]*\) iterations .*/\1/p')
  n=$(value n "$line")
  s=$(value s "$line")
  case "$line" in
    *"[BSP: 1"* | *"[rounding only"*) family=bsp; formula=1 ;;
    *"[unbiased ω = "*)
      family=unbiased
      formula=$(awk -v w="$(value ω "$line")" -v n="$n" -v s="$s" \
        'BEGIN { printf "%.12g", ((1 + w / n) + (1 + w) * s) / (1 + s) }') ;;
    *"[error feedback δ = "*)
      family=ef
      formula=$(awk -v d="$(value δ "$line")" -v n="$n" -v s="$s" \
        'BEGIN { printf "%.12g", (s + sqrt((1 - d) * n * s) / d + 1 / d) / (1 + s) }') ;;
    *"[Local SGD H = "*)
      family=local
      formula=$(awk -v h="$(value H "$line")" -v n="$n" -v s="$s" \
        'BEGIN { k = h - 1; printf "%.12g", (s + sqrt(n * s * k) + 1 + k) / (1 + s) }') ;;
    *"[ASP τ = "* | *"[SSP τ = "*)
      family=stale
      formula=$(awk -v t="$(value τ "$line")" -v n="$n" -v s="$s" \
        'BEGIN { printf "%.12g", (s + (1 + t) / n) / (1 + s) }') ;;
    *"[D-PSGD "*)
      # κ of the whole spectrum where printed, else the gap's 1/p − 1 from λ.
      family=dpsgd
      kappa=$(printf '%s\n' "$line" | sed -n 's/.*(1 − λᵢ²) = \([0-9.eE+-]*\).*/\1/p' | head -n 1)
      formula=$(awk -v k="$kappa" -v l="$(value λ "$line")" -v n="$n" -v s="$s" \
        'BEGIN { if (k == "") { p = 1 - l * l; k = 1 / p - 1 }
                 printf "%.12g", (s + sqrt(n * s * k) + 1 + k) / (1 + s) }') ;;
    *) echo "check_multiplier: FAIL: no known theory on: $line"; bad=1; continue ;;
  esac
  seen="$seen $family"
  # Multiplier printed with 5 significant digits and λ, ω, δ with 5: allow
  # 2e-4 relative; time to target = time per iteration × multiplier to the
  # printed 3 decimals.
  if ! awk -v m="$m" -v f="$formula" -v t="$total" -v p="$perIter" 'BEGIN {
      ok = (m - f <= 2e-4 * f && f - m <= 2e-4 * f)
      d = t - p * m; if (d < 0) d = -d
      ok = ok && d <= 5e-4 * (1 + m) + 1e-4 * t
      exit ok ? 0 : 1 }'; then
    echo "check_multiplier: FAIL: printed $m, formula $formula (time $total = $perIter × $m?): $line"
    bad=1
  fi
done <"$tmp"
for family in bsp unbiased ef local stale dpsgd; do
  case " $seen " in
    *" $family "*) ;;
    *) echo "check_multiplier: FAIL: no $family line"; bad=1 ;;
  esac
done
[ "$bad" -eq 0 ] || exit 1
echo "check_multiplier: PASS ($(wc -l <"$tmp") multipliers match their formulas)"
