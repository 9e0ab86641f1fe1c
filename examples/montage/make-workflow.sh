#!/bin/bash
# Writes a real Montage mosaic workflow, with its synthetic input sky, for
# Locus: OUTDIR/Makeflow (the Make-like Makeflow language) and
# OUTDIR/sequential.sh (the same commands, one after another, in one
# directory: the reference run). See examples/montage/README.md.
#
# Usage: examples/montage/make-workflow.sh OUTDIR [GRID]
#
# GRID x GRID tiles (default 3, 2 to 20) of 202 x 202 pixels (1.8"), each
# rotated a little and overlapping its neighbours by about 15%, rendered by
# mMakeImg from one star catalogue over a background plane of its own.
# Needs Montage (Debian: montage) and awk. OUTDIR must be new or empty.
set -eu

die() {
	echo "make-workflow.sh: $*" >&2
	exit 1
}
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: make-workflow.sh OUTDIR [GRID]" >&2
	exit 2
fi
out=$1
grid=${2:-3}
case $grid in
'' | *[!0-9]*) die "GRID must be a whole number from 2 to 20, got \"$grid\"" ;;
esac
if [ "$grid" -lt 2 ] || [ "$grid" -gt 20 ]; then
	die "GRID must be from 2 to 20, got $grid"
fi
for tool in mMakeHdr mMakeImg mImgtbl mProjectPP mOverlaps mDiff mFitplane mBgModel mBackground mAdd awk; do
	command -v "$tool" >/dev/null || die "$tool not found (Debian: apt-get install montage)"
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
	die "$out exists and is not empty"
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/montage-gen.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# quiet CMD...: runs a Montage tool, showing its status line only on failure
# (Montage tools print "[struct stat=...]" on stdout and exit 1 on ERROR).
quiet() {
	local msg
	if ! msg=$("$@" 2>&1); then
		die "$1 failed: $msg"
	fi
}

ntiles=$((grid * grid))
width=2
[ "$ntiles" -le 100 ] || width=3
tile_id() { printf "%0${width}d" "$1"; }

# --- The synthetic sky ---------------------------------------------------
# Geometry: tiles of 0.1 degree (plus mMakeHdr's margin) every 0.085
# degree around (150.1, +2.2), 0.0005 degree (1.8") pixels.
mkdir -p "$out/sky" "$out/raw"
ra0=150.1
dec0=2.2
pix=0.0005
size=0.1
step=0.085

# One star catalogue over the whole field (an IPAC table: fixed-width
# columns under |name| headers). A Park-Miller generator in awk, so that
# every awk draws the same stars: positions uniform, fluxes heavy-tailed.
awk -v ra0=$ra0 -v dec0=$dec0 -v g="$grid" -v size=$size -v step=$step '
function rnd() { seed = (16807 * seed) % 2147483647; return seed / 2147483647 }
BEGIN {
	seed = 20240607
	pi = atan2(0, -1)
	span = (g - 1) * step + size + 0.02
	n = int(70 * (span / size) ^ 2)
	printf("|%14s|%14s|%12s|\n|%14s|%14s|%12s|\n", "ra", "dec", "flux", "double", "double", "double")
	for (i = 0; i < n; i++) {
		x = (rnd() - 0.5) * span
		y = (rnd() - 0.5) * span
		flux = 8 / (0.02 + rnd()) ^ 1.2
		printf(" %14.8f %14.8f %12.4f \n", ra0 + x / cos(dec0 * pi / 180), dec0 + y, flux)
	}
}' >"$out/sky/stars.tbl"

# Each tile: its four corners (a square of side $size, turned by a few
# degrees, different from tile to tile) in a table, from which mMakeHdr
# writes the tile's FITS header; mMakeImg then renders the stars (gaussian,
# 3 pixels wide) on a tilted background plane (its values at the four
# corners: a level and two slopes of the tile's own) with gaussian noise.
printf '|%-20s|\n|%-20s|\n' fname char >"$scratch/raw.lst"
for ((iy = 0; iy < grid; iy++)); do
	for ((ix = 0; ix < grid; ix++)); do
		k=$((iy * grid + ix))
		t=$(tile_id $k)
		awk -v ra0=$ra0 -v dec0=$dec0 -v g="$grid" -v ix=$ix -v iy=$iy -v size=$size -v step=$step '
		BEGIN {
			pi = atan2(0, -1)
			rot = ((3 * ix + 5 * iy) % 7 - 3) * 1.0 * pi / 180
			xc = (ix - (g - 1) / 2) * step
			yc = (iy - (g - 1) / 2) * step
			h = size / 2
			printf("|%14s|%14s|\n|%14s|%14s|\n", "ra", "dec", "double", "double")
			split("-1 1 1 -1", sx, " ")
			split("-1 -1 1 1", sy, " ")
			for (i = 1; i <= 4; i++) {
				x = xc + sx[i] * h * cos(rot) - sy[i] * h * sin(rot)
				y = yc + sx[i] * h * sin(rot) + sy[i] * h * cos(rot)
				printf(" %14.8f %14.8f \n", ra0 + x / cos(dec0 * pi / 180), dec0 + y)
			}
		}' >"$scratch/corners_$t.tbl"
		quiet mMakeHdr -p $pix "$scratch/corners_$t.tbl" "$out/sky/t_$t.hdr"
		# Background: level 10..50, slopes up to 8 across the tile.
		bg=$(awk -v ix=$ix -v iy=$iy 'BEGIN {
			l = 10 + 5 * ix + 7 * iy + (ix * 7 + iy * 11) % 9
			gx = ((ix + 2 * iy) % 5 - 2) * 2
			gy = ((2 * ix + iy) % 5 - 2) * 1.5
			printf("%g %g %g %g", l, l + gx, l + gx + gy, l + gy) }')
		# shellcheck disable=SC2086
		(cd "$out" && quiet mMakeImg -n 0.5 -b $bg -t sky/stars.tbl flux 3 eq 2000 1 flux gaussian \
			"sky/t_$t.hdr" "raw/t_$t.fits")
		printf ' %-20s \n' "t_$t.fits" >>"$scratch/raw.lst"
	done
done

# The mosaic's region: mMakeHdr over the tiles' image table, north up.
quiet mImgtbl -t "$scratch/raw.lst" "$out/raw" "$scratch/raw.tbl"
quiet mMakeHdr -n "$scratch/raw.tbl" "$out/region.hdr"

# The image lists for mImgtbl -t. With -t, mImgtbl reads exactly the
# files listed, in the list's order (without it, it scans the directory,
# in the order the directory is read), so the image table's cntr k is tile
# k wherever the workflow runs, and nothing else in the directory is read.
# The names are relative to the working directory ("." below) because
# mBackground -t finds its input's row by comparing its name with fname.
printf '|%-20s|\n|%-20s|\n' fname char >"$out/proj.lst"
printf '|%-20s|\n|%-20s|\n' fname char >"$out/corr.lst"
for ((k = 0; k < ntiles; k++)); do
	t=$(tile_id $k)
	printf ' %-20s \n' "proj/p_$t.fits" >>"$out/proj.lst"
	printf ' %-20s \n' "corr/c_$t.fits" >>"$out/corr.lst"
done
cp "$here/concat-fits.sh" "$out/concat-fits.sh"

# --- The workflow, as one list of rules ----------------------------------
# rule TARGETS SOURCES COMMAND: appends a rule. The Makeflow and
# sequential.sh are both written from this list. Commands use relative
# names only and read only their sources.
r_targets=()
r_sources=()
r_command=()
rule() {
	case $3 in
	*[\'\"\\\$\#]*) die "internal: a command with quotes, \\, \$ or #: $3" ;;
	esac
	r_targets+=("$1")
	r_sources+=("$2")
	r_command+=("$3")
}

proj_all="" # proj/p_K.fits of every tile
corr_img="" # corr/c_K.fits of every tile
corr_all="" # corr/c_K.fits and its area image, every tile
for ((k = 0; k < ntiles; k++)); do
	t=$(tile_id $k)
	# mProjectPP: tile -> projected image and its area image (pipeline;
	# region.hdr is read by every task of the stage: multicast).
	rule "proj/p_$t.fits proj/p_${t}_area.fits" "raw/t_$t.fits region.hdr" \
		"mProjectPP raw/t_$t.fits proj/p_$t.fits region.hdr"
	proj_all="$proj_all proj/p_$t.fits"
	corr_img="$corr_img corr/c_$t.fits"
	corr_all="$corr_all corr/c_$t.fits corr/c_${t}_area.fits"
done
proj_all=${proj_all# }
corr_img=${corr_img# }
corr_all=${corr_all# }
# mImgtbl: every projected image -> the image table (gather).
rule "images.tbl" "proj.lst $proj_all" "mImgtbl -t proj.lst . images.tbl"
# mOverlaps: image table -> the table of overlapping pairs (pipeline).
rule "diffs.tbl" "images.tbl" "mOverlaps images.tbl diffs.tbl"
n_first=${#r_command[@]}

# Run those first rules now, in scratch, to learn the overlapping pairs:
# the same commands on the same inputs give the same diffs.tbl at run time.
mkdir -p "$scratch/run/proj" "$scratch/run/raw"
cp "$out"/raw/*.fits "$scratch/run/raw/"
cp "$out/region.hdr" "$out/proj.lst" "$scratch/run/"
for ((i = 0; i < n_first; i++)); do
	# shellcheck disable=SC2086
	(cd "$scratch/run" && quiet ${r_command[$i]})
done
pairs=$(awk '!/^[|\\]/ && NF >= 5 { print $1, $2, $5 }' "$scratch/run/diffs.tbl")
[ -n "$pairs" ] || die "mOverlaps found no overlapping tiles"

fit_all=""
while read -r c1 c2 diff; do
	a=$(tile_id "$c1")
	b=$(tile_id "$c2")
	d=${diff%.fits}
	f=fit${d#diff}
	# mDiff: two projected images (and their areas) -> their difference
	# in the overlap; mFitplane: difference -> the plane fitted to it.
	rule "diff/$d.fits diff/${d}_area.fits" \
		"proj/p_$a.fits proj/p_${a}_area.fits proj/p_$b.fits proj/p_${b}_area.fits region.hdr" \
		"mDiff proj/p_$a.fits proj/p_$b.fits diff/$d.fits region.hdr"
	rule "fit/$f.txt" "diff/$d.fits" "mFitplane -s fit/$f.txt diff/$d.fits"
	fit_all="$fit_all fit/$f.txt"
done <<<"$pairs"
fit_all=${fit_all# }

# Concatenate the fits (gather) -> the plane-fit table.
rule "fits.tbl" "concat-fits.sh diffs.tbl $fit_all" "sh concat-fits.sh diffs.tbl fit fits.tbl"
# mBgModel: image table + fits -> one correction per image.
rule "corrections.tbl" "images.tbl fits.tbl" "mBgModel images.tbl fits.tbl corrections.tbl"
# mBackground: each projected image, corrected (corrections.tbl and
# images.tbl are read by every task of the stage: multicast).
for ((k = 0; k < ntiles; k++)); do
	t=$(tile_id $k)
	rule "corr/c_$t.fits corr/c_${t}_area.fits" \
		"proj/p_$t.fits proj/p_${t}_area.fits images.tbl corrections.tbl" \
		"mBackground -t proj/p_$t.fits corr/c_$t.fits images.tbl corrections.tbl"
done
# mImgtbl over the corrected images, then mAdd (gather) -> the mosaic.
rule "corr-images.tbl" "corr.lst $corr_img" "mImgtbl -t corr.lst . corr-images.tbl"
rule "mosaic.fits mosaic_area.fits" "corr-images.tbl region.hdr $corr_all" \
	"mAdd corr-images.tbl region.hdr mosaic.fits"

# --- Writing the Makeflow and sequential.sh from the list ----------------
nrules=${#r_command[@]}
declare -A made=()
for ((i = 0; i < nrules; i++)); do
	for f in ${r_targets[$i]}; do made[$f]=1; done
done
inputs=()
declare -A seen=()
dirs=()
declare -A seen_dir=()
for ((i = 0; i < nrules; i++)); do
	for f in ${r_sources[$i]}; do
		if [ -z "${made[$f]:-}" ] && [ -z "${seen[$f]:-}" ]; then
			seen[$f]=1
			inputs+=("$f")
		fi
	done
	for f in ${r_targets[$i]}; do
		case $f in */*) d=${f%/*} ;; *) continue ;; esac
		if [ -z "${seen_dir[$d]:-}" ]; then
			seen_dir[$d]=1
			dirs+=("$d")
		fi
	done
done
npairs=$(printf '%s\n' "$pairs" | wc -l)

{
	echo "# Montage mosaic of a synthetic ${grid}x$grid-tile sky, written by"
	echo "# examples/montage/make-workflow.sh: $ntiles tiles, $npairs overlapping pairs,"
	echo "# $nrules rules. Inputs: ${#inputs[@]} files (raw/, region.hdr, proj.lst,"
	echo "# corr.lst, concat-fits.sh); output: mosaic.fits. Every command reads only"
	echo "# its rule's sources and writes only its targets, by relative names."
	for ((i = 0; i < nrules; i++)); do
		echo
		echo "${r_targets[$i]}: ${r_sources[$i]}"
		printf '\t%s\n' "${r_command[$i]}"
	done
} >"$out/Makeflow"

{
	cat <<EOF
#!/bin/bash
# The reference run of the Montage workflow beside it (written by
# examples/montage/make-workflow.sh with the Makeflow, from the same rules):
# its $nrules commands in the Makeflow's order, one after another, in DIR.
#
# Usage: sequential.sh [DIR]   (DIR new or empty; default: seq/ here)
# The workflow's inputs are copied into DIR; the mosaic is DIR/mosaic.fits.
EOF
	cat <<'EOF'
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dir=${1:-$here/seq}
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then
	echo "sequential.sh: $dir exists and is not empty" >&2
	exit 2
fi
mkdir -p "$dir"
EOF
	echo "inputs=\"${inputs[*]}\""
	cat <<'EOF'
for f in $inputs; do
	mkdir -p "$dir/$(dirname "$f")"
	cp "$here/$f" "$dir/$f"
done
cd "$dir"
EOF
	echo "mkdir -p ${dirs[*]}"
	echo "total=$nrules"
	cat <<'EOF'
n=0
# step COMMAND: runs one rule's command as Makeflow does, with /bin/sh -c.
step() {
	n=$((n + 1))
	echo "[$n/$total] $1"
	if ! /bin/sh -c "$1"; then
		echo "sequential.sh: step $n failed: $1" >&2
		exit 1
	fi
}
EOF
	for ((i = 0; i < nrules; i++)); do
		echo "step '${r_command[$i]}'"
	done
	# shellcheck disable=SC2016
	echo 'echo "sequential.sh: mosaic in $dir/mosaic.fits"'
} >"$out/sequential.sh"
chmod +x "$out/sequential.sh"

echo "make-workflow.sh: $out/Makeflow: $nrules rules ($ntiles tiles, $npairs overlaps); reference run: $out/sequential.sh"
