// --stage llm-encode: the prompt (and the negative prompt when --cfg-scale != 1) -> the
// conditioning file (native/PROTOCOL.md).

#include <chrono>
#include <string>
#include <vector>

#include "common/media_io.h"
#include "stages.hpp"

using nlohmann::json;

namespace stage {

ExitCode run_llm_encode(Run& run) {
    auto t0 = std::chrono::steady_clock::now();
    check_model(run.ctx.llm_path, "--llm", "llm");
    require_flag(run.opt.save_embeddings, "--save-embeddings FILE", "llm-encode");
    check_output_folder(run.opt.save_embeddings, "--save-embeddings");
    check_prompt_length(run, run.gen.prompt, "-p");
    if (run.gen.sample_params.guidance.txt_cfg != 1.f) {
        check_prompt_length(run, run.gen.negative_prompt, "-n");
    }
    std::string device = apply_backend(run, "te");
    emit_hello(run, device);
    SDCtxPtr context = load_context(run, SD_STAGE_MODULE_LLM, "llm", run.ctx.llm_path, device, true);
    sd_img_gen_params_t params = run.gen.to_sd_img_gen_params_t();
    SDStageTensors condition;
    bool encoded = false;
    {
        Control::Busy busy(run.control);
        encoded = sd_stage_encode_condition(context.get(), &params, &condition);
    }
    run.control.gate();
    if (!encoded) {
        library_failure(EXIT_INTERNAL, "text encoding failed (see the log above)");
    }
    if (planning()) {
        return finish_plan(run);
    }
    write_tensors(run.opt.save_embeddings, condition);
    stage_done(run, seconds_since(t0), {{"embeddings", run.opt.save_embeddings}});
}

}  // namespace stage
