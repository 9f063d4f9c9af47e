# Prints the header fields of a Tile artifact (version 2): its version,
# target, execution backend, device format and device architecture.
import struct
import sys

data = open(sys.argv[1], "rb").read()
pos = 8
version = struct.unpack_from("<Q", data, pos)[0]
pos += 8
print("version", version)
for name in ("target", "exec", "format", "arch"):
    n = struct.unpack_from("<Q", data, pos)[0]
    print(name, data[pos + 8:pos + 8 + n].decode())
    pos += 8 + n
