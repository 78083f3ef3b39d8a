// libFuzzer's driver, called from a harness's own `main`.
//
// Why: SwiftPM links an executable's entry point as `<Module>_main`, so a harness cannot
// leave `main` to libFuzzer; instead its top-level code hands its callback to this driver,
// which parses libFuzzer's command line and runs the fuzzing loop.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
