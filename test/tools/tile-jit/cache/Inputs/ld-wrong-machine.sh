#!/bin/sh
# An ld.lld that links as ld.lld-22 does, then marks the shared object it
# wrote as made for another machine (ELF e_machine 3, i386), which the
# dynamic loader refuses: a cache entry whose host library cannot be loaded.
ld.lld-22 "$@" || exit $?
out=
prev=
for a in "$@"; do
  [ "$prev" = "-o" ] && out=$a
  prev=$a
done
printf '\003\000' | dd of="$out" bs=1 seek=18 count=2 conv=notrunc 2>/dev/null
