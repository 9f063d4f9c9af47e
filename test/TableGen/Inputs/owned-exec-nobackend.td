// A file that declares a device format but no target backend, for
// backend-owned-exec.td: nothing would register the format.

def StrayFormat : DeviceFormat<"stray", 1, "declared where no backend is">;
