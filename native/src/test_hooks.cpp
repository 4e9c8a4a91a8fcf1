// Test hooks (native/PROTOCOL.md, "Test hooks"): injected failures that look exactly like a real
// out-of-memory (the log line, the exit code and the error event), for the front end's recovery
// tests. Compiled into a test build only (CMake SD_STAGE_TEST_HOOKS, native/build.py
// --test-hooks); in a release build stages.hpp makes every hook an empty inline function.
#ifdef SD_STAGE_TEST_HOOKS

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "sd_stage.hpp"
#include "stages.hpp"

namespace stage {

namespace {

[[noreturn]] void injected_out_of_memory(const char* hook, const std::string& message) {
    std::fprintf(stderr, "[ERROR] ggml_backend_buffer_type_alloc_buffer: failed to allocate buffer (injected by %s)\n", hook);
    note_alloc_failure();
    library_failure(EXIT_INTERNAL, message);
}

}  // namespace

// SD_STAGE_TEST_OOM_DECODE=1: an untiled vae-decode fails after the VAE is loaded.
void test_hook_oom_decode(const Run& run) {
    const char* value = std::getenv("SD_STAGE_TEST_OOM_DECODE");
    if (!planning() && value != nullptr && std::string(value) == "1" && !run.gen.vae_tiling_params.enabled) {
        injected_out_of_memory("SD_STAGE_TEST_OOM_DECODE", "VAE decoding failed (see the log above)");
    }
}

// SD_STAGE_TEST_OOM_AT_STEP=k: after step k's checkpoint (not one a resume starts from), the run
// fails as a real out-of-memory in step k+1 does.
void test_hook_oom_at_step(SDStageSampleRequest& req, int start_step, bool* fired) {
    const char* value = std::getenv("SD_STAGE_TEST_OOM_AT_STEP");
    int oom_at        = value != nullptr && *value != '\0' ? std::atoi(value) : -1;
    if (oom_at < 0 || planning()) {
        return;
    }
    req.on_step = [oom_at, start_step, fired, inner = req.on_step](const SDStageStepInfo& info) {
        bool go_on = inner(info);
        if (info.step == oom_at && (info.step > start_step || start_step == 0)) {
            *fired = true;
            return false;
        }
        return go_on;
    };
}

void test_hook_oom_after_sample(bool fired) {
    if (fired) {
        injected_out_of_memory("SD_STAGE_TEST_OOM_AT_STEP", "sampling failed (see the log above)");
    }
}

// SD_STAGE_TEST_SLOW_LOAD=1: a model load lasts until a stop request ends the process (at most
// 60 s), so a test's stop is read during the load however the threads are scheduled.
void test_hook_slow_load() {
    const char* value = std::getenv("SD_STAGE_TEST_SLOW_LOAD");
    if (planning() || value == nullptr || std::string(value) != "1") {
        return;
    }
    for (int i = 0; i < 600; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace stage

#endif  // SD_STAGE_TEST_HOOKS
