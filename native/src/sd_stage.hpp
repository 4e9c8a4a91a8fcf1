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
    // One line on the real stdout, whatever the event mode (--plan's JSON object).
    void result(const std::string& line);

private:
    std::mutex mutex_;
    FILE* out_    = nullptr;
    FILE* stdout_ = nullptr;  // the process's stdout before fd 1 became a copy of stderr
    bool jsonl_ = false;
};

// A stop request acted on outside the diffuse steps: the stage ends without output.
struct StageStopped : std::runtime_error {
    std::string reason;  // "suspended" | "cancelled"
    explicit StageStopped(const std::string& reason) : std::runtime_error(reason), reason(reason) {}
};

// Pause / resume / suspend / cancel requests from stdin (JSON lines), end of stdin and SIGINT.
// End of input on a pipe (the front end died) counts as suspend. While the stage is in a phase
// that writes nothing (`Busy`: model load, encode, decode), a stop request ends the process at
// once (no output, exit 6 / 7); otherwise it is acted on at the next gate.
class Control {
public:
    void start(Events* events);
    // Between diffusion steps: blocks while paused; returns "", "suspended" or "cancelled".
    std::string checkpoint_gate(int step);
    // Between phases of any stage: throws StageStopped when a stop was requested.
    void gate();
    // diffuse: the last step with a valid checkpoint (named by a "stopped" event on an early stop).
    void set_last_step(int step) { last_step_.store(step); }
    int last_step() const { return last_step_.load(); }
    // Marks a phase that writes nothing, during which a stop request exits at once.
    class Busy {
    public:
        explicit Busy(Control& control);
        ~Busy();
        Busy(const Busy&)            = delete;
        Busy& operator=(const Busy&) = delete;

    private:
        Control& control_;
    };

private:
    void read_stdin();
    void request_stop(const std::string& reason);  // with mutex_ held
    void poll_sigint();                            // with mutex_ held
    std::mutex mutex_;
    std::condition_variable changed_;
    bool paused_ = false;
    bool busy_   = false;
    std::atomic<int> last_step_{-1};
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
    std::string mask_mode = "hard";  // --mask-mode hard | soft (soft_mask.cpp)
    std::string output  = "output.png";
    std::string backend;
    std::string params_backend;
    std::string model_version = "flux2-klein";
    bool verbose              = false;
    bool plan                 = false;  // --plan: report what the stage would allocate (plan.cpp)
    int plan_tokens           = 512;    // --plan-tokens: conditioning length when the file is missing
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
// durable = false: no fsync before the rename (a step preview, the folder's write test: a crash
// may lose it, never leave half of it); outputs and checkpoints are always durable.
void write_file_atomic(const std::string& path, const void* data, size_t size, bool durable = true);  // throws StageError(8)
nlohmann::json file_identity(const std::string& path);                           // {path, size, mtime}
SDStageTensors read_tensors(const std::string& path, const std::string& flag);   // throws StageError(5)
void write_tensors(const std::string& path, const SDStageTensors& tensors);       // throws StageError(8)

// validate.cpp: the shapes every stage reads (ggml order, ne0 first), checked before any ggml call.
constexpr int64_t LATENT_CHANNELS      = 128;   // FLUX.2: 32 VAE channels, 2x2 patches
constexpr int64_t MAX_LATENT_SIDE      = 1024;  // latent cells (16 pixels each): 16384 pixels
constexpr int64_t MAX_CONDITION_TOKENS = 8192;
constexpr size_t MAX_REF_LATENTS       = 16;
// A latent [want_w, want_h, 128, 1] (want_* <= 0: any size up to MAX_LATENT_SIDE), finite.
void check_latent(const std::string& flag, const std::string& path, const std::string& name, const sd::Tensor<float>& t,
                  int64_t want_w, int64_t want_h);
// c_crossattn (+ uncond_c_crossattn) of shape [context_dim, tokens(, 1)] (context_dim <= 0: any).
void check_condition(const std::string& flag, const std::string& path, const SDStageTensors& tensors, int64_t context_dim,
                     bool need_uncond);
// ref_0, ref_1, ... latents of any size.
void check_ref_latents(const std::string& flag, const std::string& path, const SDStageTensors& tensors);
// The context size the DiT's txt_in.weight takes (from the file's header; 0 when unknown).
int64_t dit_context_dim(const std::string& model_path);

// devices.cpp
nlohmann::json list_devices(bool memory_facts = true);  // false: name, description, type only
std::string default_device();

// plan.cpp: --plan (native/PROTOCOL.md, "Plan"); plan_begin() before the context is created.
void plan_begin();
bool planning();
nlohmann::json plan_report(Run& run);
ExitCode finish_plan(Run& run, nlohmann::json extra = nlohmann::json::object());  // prints the report
// main.cpp: the stage's outputs are written: the `done` event, then the process ends at once
// with exit 0 (leave_process: the model and the device are not torn down; the OS frees them).
[[noreturn]] void stage_done(Run& run, double seconds, nlohmann::json outputs);
[[noreturn]] void leave_process(int code);
// Stand-ins for inputs a planned stage's predecessor has not written yet: zeros of the shape the
// flags imply (a latent of -W x -H; a conditioning of --plan-tokens tokens, 512 by default).
sd::Tensor<float> plan_latent(Run& run, const std::string& stage);
SDStageTensors plan_condition(Run& run);

// soft_mask.cpp: --mask-mode soft (native/PROTOCOL.md, "Masks").
// The --mask image (width x height, one channel) at latent resolution, unrounded: each cell the
// largest value (0..1) of its factor x factor block.
sd::Tensor<float> soft_latent_mask(const sd_image_t& mask, int width, int height, int factor);
// Step `step` (1-based) of `steps` lets a cell of mask value m change when m > this: 1 - step/steps.
float soft_mask_threshold(int step, int steps);
// The x0 prediction of step `step`: cells that may not change yet take the init latent.
void soft_mask_blend(sd::Tensor<float>& denoised, const sd::Tensor<float>& init, const sd::Tensor<float>& mask, int step,
                     int steps);

// stages.cpp
ExitCode run_stage(Run& run);

}  // namespace stage

#endif  // SD_STAGE_HPP
