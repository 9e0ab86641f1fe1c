#!/bin/sh
# The Montage example's fit-gathering step, in place of mConcatFit (which
# the Debian package lacks): one row of the plane-fit table per overlap.
#
# Usage: sh concat-fits.sh DIFFS.TBL FITDIR FITS.TBL
#
# DIFFS.TBL is mOverlaps' table (cntr1, cntr2, plus, minus, diff); for each
# of its rows, FITDIR/fit.C1.C2.txt is the status line mFitplane wrote (-s)
# for the difference image diff.C1.C2.fits. FITS.TBL gets the table
# mBgModel reads: plus, minus (the images' cntr in the image table), then
# the plane a x + b y + c and the overlap's extent, the columns mFitExec
# writes. A fit mFitplane could not make (stat other than OK, e.g. too few
# pixels) is left out, as mFitExec leaves it out; a fit file that is
# missing is an error, since the workflow names one for every overlap.
set -eu
if [ $# -ne 3 ]; then
	echo "usage: sh concat-fits.sh DIFFS.TBL FITDIR FITS.TBL" >&2
	exit 2
fi
diffs=$1
fitdir=$2
out=$3

awk -v fitdir="$fitdir" -v out="$out" '
function field(line, key,   v) {
	# The value of key=value in a Montage status line "[struct stat=..., a=1, ...]".
	if (!match(line, "[ ,[]" key "=[^,]*"))
		return ""
	v = substr(line, RSTART + 1, RLENGTH - 1)
	sub(/^[^=]*=/, "", v)
	gsub(/[]"]/, "", v)
	return v
}
BEGIN {
	printf("|%9s|%9s|%16s|%16s|%16s|%14s|%14s|%10s|%10s|%10s|%10s|%13s|%13s|%13s|%16s|%16s|%16s|%16s|%16s|%16s|\n",
	       "plus", "minus", "a", "b", "c", "crpix1", "crpix2", "xmin", "xmax", "ymin", "ymax",
	       "xcenter", "ycenter", "npixel", "rms", "boxx", "boxy", "boxwidth", "boxheight", "boxang") > out
}
/^[|\\]/ { next }
NF >= 5 {
	name = $5
	sub(/^diff\./, "fit.", name)
	sub(/\.fits$/, ".txt", name)
	file = fitdir "/" name
	line = ""
	if ((getline line < file) <= 0) {
		printf("concat-fits.sh: %s: missing or empty (the fit of %s)\n", file, $5) > "/dev/stderr"
		bad = 1
		exit 1
	}
	close(file)
	if (field(line, "stat") != "OK") {
		skipped++
		next
	}
	printf(" %9d %9d %16.5e %16.5e %16.5e %14.2f %14.2f %10d %10d %10d %10d %13.2f %13.2f %13.0f %16.5e %16.1f %16.1f %16.1f %16.1f %16.1f \n",
	       $1, $2, field(line, "a"), field(line, "b"), field(line, "c"),
	       field(line, "crpix1"), field(line, "crpix2"),
	       field(line, "xmin"), field(line, "xmax"), field(line, "ymin"), field(line, "ymax"),
	       field(line, "xcenter"), field(line, "ycenter"), field(line, "npixel"), field(line, "rms"),
	       field(line, "boxx"), field(line, "boxy"), field(line, "boxwidth"),
	       field(line, "boxheight"), field(line, "boxang")) > out
	count++
}
END {
	if (bad)
		exit 1
	# A status line on stdout, like those of the Montage tools.
	printf("[struct stat=\"OK\", module=\"concat-fits.sh\", count=%d, failed=%d]\n",
	       count, skipped)
}
' "$diffs" || {
	rm -f "$out"
	exit 1
}
