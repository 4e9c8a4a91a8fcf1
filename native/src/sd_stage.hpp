// sd-stage: one stage of the FLUX.2 [klein] pipeline per process (see native/PROTOCOL.md).
#ifndef SD_STAGE_HPP
#define SD_STAGE_HPP

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/common.h"
#include "json.hpp"
#include "stage_api.h"

namespace stage {

// Exit codes, part of the protocol.
enum ExitCode {
    EXIT_OK            = 0,
    EXIT_INTERNAL      = 1,
    EXIT_USAGE         = 2,
    EXIT_MODEL_LOAD    = 3,
    EXIT_OUT_OF_MEMORY = 4,
    EXIT_BAD_INPUT     = 5,
    EXIT_SUSPENDED     = 6,
    EXIT_CANCELLED     = 7,
    EXIT_WRITE_FAILED  = 8,
};

// A failure that ends the stage: one line naming the file or flag and the fix.
struct StageError : std::runtime_error {
    ExitCode code;
    StageError(ExitCode code, const std::string& message)
        : std::runtime_error(message), code(code) {}
};

// JSON-lines events on the saved stdout (--events jsonl), or plain lines on stderr.
class Events {
public:
    void open(bool jsonl);
    void emit(const std::string& type, nlohmann::json fields);
    bool jsonl() const { return jsonl_; }

private:
    std::mutex mutex_;
    FILE* out_  = nullptr;
    bool jsonl_ = false;
};

// Pause / resume / suspend / cancel requests from stdin (JSON lines) and SIGINT.
class Control {
public:
    void start(Events* events, bool handle_sigint);
    // Called between steps: blocks while paused; returns "", "suspended" or "cancelled".
    std::string checkpoint_gate(int step);

private:
    void read_stdin();
    std::mutex mutex_;
    std::condition_variable changed_;
    bool paused_ = false;
    std::string stop_;
    Events* events_ = nullptr;
};

struct StageOptions {
    std::string stage;
    bool events_jsonl = false;
    std::string save_latent, load_latent, save_ref_latents, load_ref_latents;
    std::string save_embeddings, load_embeddings;
    std::string checkpoint_dir;
    int resume_step     = -1;
    std::string preview = "none";
    std::string output  = "output.png";
    std::string backend;
    std::string params_backend;
    std::string model_version = "flux2-klein";
    bool verbose              = false;
};

struct Run {
    StageOptions opt;
    SDContextParams ctx;
    SDGenerationParams gen;
    Events events;
    Control control;
};

// files.cpp
std::string sha256_file(const std::string& path);
void write_file_atomic(const std::string& path, const void* data, size_t size);  // throws StageError(8)
nlohmann::json file_identity(const std::string& path);                           // {path, size, mtime}
SDStageTensors read_tensors(const std::string& path, const std::string& flag);   // throws StageError(5)
void write_tensors(const std::string& path, const SDStageTensors& tensors);       // throws StageError(8)

// devices.cpp
nlohmann::json list_devices();
std::string default_device();

// stages.cpp
ExitCode run_stage(Run& run);

}  // namespace stage

#endif  // SD_STAGE_HPP
