// What the stage files share (native/README.md, "Layout"): the library log, the checks of flags
// and input files, the device choice and the context load, the test hooks, and the stages.
#ifndef SD_STAGE_STAGES_HPP
#define SD_STAGE_STAGES_HPP

#include <chrono>
#include <string>

#include "sd_stage.hpp"

namespace stage {

double seconds_since(std::chrono::steady_clock::time_point t0);

// stages.cpp: the library log and run_stage().
// A failure of the library: out of memory (exit 4) when the log reported a failed allocation,
// else `fallback`.
[[noreturn]] void library_failure(ExitCode fallback, const std::string& message);
// Counts as a failed allocation the log reported (test_hooks.cpp injects one).
void note_alloc_failure();

// checks.cpp: flags, files and numbers, checked before any model loads.
void check_model(const std::string& path, const std::string& flag, const std::string& kind);
void require_flag(const std::string& value, const std::string& flag, const std::string& why);
void check_input_file(const std::string& path, const std::string& flag);
void check_output_folder(const std::string& path, const std::string& flag);  // creates it
const sd::Tensor<float>& find_tensor(const SDStageTensors& tensors, const std::string& name, const std::string& flag,
                                     const std::string& path);
// The file holds exactly one tensor, `name` (a latent or a checkpoint).
void check_only_tensor(const SDStageTensors& tensors, const std::string& name, const std::string& flag, const std::string& path);
// The one tensor `name` of the tensor file `path` (given with `flag`).
sd::Tensor<float> read_only_tensor(const std::string& path, const std::string& name, const std::string& flag);
// --plan and a missing input file: planned from the flags (native/PROTOCOL.md, "Plan").
bool plan_without(const std::string& path);
void check_numbers(const Run& run);                                // --strength, --cfg-scale, --steps
void check_size(const Run& run, const std::string& stage);         // -W/-H
void check_prompt_length(const Run& run, const std::string& text, const std::string& flag);
int vae_scale_factor(const Run& run);                              // pixels per latent cell
// Sets -W/-H from a latent (or checks them against it).
void size_from_latent(Run& run, const sd::Tensor<float>& latent, const std::string& flag, const std::string& path);
// Loads an image as sd-cli does: resized to -W/-H when `resize` and both are given.
void load_image(Run& run, const std::string& path, const std::string& flag, SDImageOwner& image, bool resize);

// context.cpp: the device a module runs on (--backend, --params-backend) and the model load.
std::string apply_backend(Run& run, const std::string& module);
void emit_hello(Run& run, const std::string& device);
SDCtxPtr load_context(Run& run, int modules, const std::string& model_key, const std::string& path, const std::string& device,
                      bool vae_decode_only);

// test_hooks.cpp (native/PROTOCOL.md, "Test hooks"): compiled into a test build only
// (SD_STAGE_TEST_HOOKS, native/build.py --test-hooks); a release build has none of them.
#ifdef SD_STAGE_TEST_HOOKS
void test_hook_oom_decode(const Run& run);  // SD_STAGE_TEST_OOM_DECODE
// SD_STAGE_TEST_OOM_AT_STEP: wraps req.on_step so that it stops after that step and sets *fired;
// test_hook_oom_after_sample(*fired) then fails the run as a real out-of-memory does.
void test_hook_oom_at_step(SDStageSampleRequest& req, int start_step, bool* fired);
void test_hook_oom_after_sample(bool fired);
void test_hook_slow_load();  // SD_STAGE_TEST_SLOW_LOAD
#else
inline void test_hook_oom_decode(const Run&) {}
inline void test_hook_oom_at_step(SDStageSampleRequest&, int, bool*) {}
inline void test_hook_oom_after_sample(bool) {}
inline void test_hook_slow_load() {}
#endif

// One file per stage: stage_vae_encode.cpp, stage_llm_encode.cpp, stage_diffuse.cpp,
// stage_vae_decode.cpp (--plan of each: plan.cpp).
ExitCode run_vae_encode(Run& run);
ExitCode run_llm_encode(Run& run);
ExitCode run_diffuse(Run& run);
ExitCode run_vae_decode(Run& run);

}  // namespace stage

#endif  // SD_STAGE_STAGES_HPP
