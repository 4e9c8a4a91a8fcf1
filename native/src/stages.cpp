// run_stage(): the library's log and aborts, then the stage the flags name (native/PROTOCOL.md).
// The stages themselves: stage_*.cpp; what they share: stages.hpp.

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "ggml.h"
#include "stages.hpp"

namespace stage {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

namespace {

struct LogState {
    bool verbose = false;
    std::mutex mutex;
    bool saw_alloc_failure = false;
};
LogState g_log;

void library_log(enum sd_log_level_t level, const char* text, void*) {
    std::string line = text;
    if (level == SD_LOG_ERROR || level == SD_LOG_WARN) {
        std::lock_guard<std::mutex> lock(g_log.mutex);
        if (line.find("alloc") != std::string::npos && line.find("fail") != std::string::npos) {
            g_log.saw_alloc_failure = true;
        }
        if (line.find("out of memory") != std::string::npos || line.find("OutOfDeviceMemory") != std::string::npos ||
            line.find("OutOfHostMemory") != std::string::npos) {
            g_log.saw_alloc_failure = true;
        }
    }
    if ((level == SD_LOG_DEBUG || (level == SD_LOG_INFO && planning())) && !g_log.verbose) {
        return;  // --plan: the loader's "unknown tensor" lines (it is handed no tensors) are noise
    }
    static const char* tags[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    std::fprintf(stderr, "[%-5s] %s", tags[level], text);
    if (line.empty() || line.back() != '\n') {
        std::fputc('\n', stderr);
    }
}

Events* g_events = nullptr;

// ggml aborts on some failed allocations (a null buffer it then asserts on): after the log
// reported an allocation failure, that abort ends the stage as out of memory (exit 4).
void on_ggml_abort(const char* message) {
    std::fprintf(stderr, "%s\n", message);
    bool oom = false;
    {
        std::lock_guard<std::mutex> lock(g_log.mutex);
        oom = g_log.saw_alloc_failure;
    }
    if (oom) {
        std::string text = std::string("out of memory: an allocation failed and ggml stopped (") + message +
                           "); try a smaller size, --diffusion-fa, --vae-tiling, --params-backend cpu or the CPU";
        if (g_events != nullptr) {
            g_events->emit("error", {{"code", EXIT_OUT_OF_MEMORY}, {"message", text}});
        }
        std::fprintf(stderr, "sd-stage: error: %s\n", text.c_str());
        std::fflush(stderr);
        std::_Exit(EXIT_OUT_OF_MEMORY);
    }
}

}  // namespace

[[noreturn]] void library_failure(ExitCode fallback, const std::string& message) {
    if (g_log.saw_alloc_failure) {
        throw StageError(EXIT_OUT_OF_MEMORY, message + ": out of memory (see the log; try a smaller size, " +
                                                 "--params-backend cpu, --max-vram or --vae-tiling)");
    }
    throw StageError(fallback, message);
}

void note_alloc_failure() {
    std::lock_guard<std::mutex> lock(g_log.mutex);
    g_log.saw_alloc_failure = true;
}

ExitCode run_stage(Run& run) {
    g_log.verbose = run.opt.verbose;
    sd_set_log_callback(library_log, nullptr);
    g_events = &run.events;
    ggml_set_abort_callback(on_ggml_abort);
    run.control.start(&run.events);
    const std::string& stage = run.opt.stage;
    if (stage == "vae-encode") return run_vae_encode(run);
    if (stage == "llm-encode") return run_llm_encode(run);
    if (stage == "diffuse") return run_diffuse(run);
    if (stage == "vae-decode") return run_vae_decode(run);
    throw StageError(EXIT_USAGE, stage.empty() ? "--stage is required: vae-encode, llm-encode, diffuse or vae-decode"
                                               : "--stage '" + stage + "': use vae-encode, llm-encode, diffuse or vae-decode");
}

}  // namespace stage
