// Plan mode (--plan): what a stage would allocate per device, from the runners' records
// (stage_plan.hpp, patch 0006), as one JSON object on stdout (native/PROTOCOL.md, "Plan").

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>

#include "sd_stage.hpp"
#include "stage_plan.hpp"

namespace stage {

void plan_begin() {
    sd_stage_plan().active = true;
}

bool planning() {
    return sd_stage_plan().active;
}

namespace {

// "CPU" -> "cpu", "Vulkan0" -> "vulkan0" (the names --backend and the front end use).
std::string device_key(const std::string& buft_name) {
    std::string key;
    for (char c : buft_name) {
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return key;
}

struct DeviceTotals {
    size_t weights = 0, compute = 0, largest_alloc = 0, largest_tensor = 0;
};

}  // namespace

nlohmann::json plan_report(Run& run) {
    SDStagePlan& plan = sd_stage_plan();
    std::lock_guard<std::mutex> lock(plan.mutex);
    std::map<std::string, DeviceTotals> devices;
    std::vector<std::string> order;
    auto at = [&](const std::string& buft) -> DeviceTotals& {
        std::string key = device_key(buft);
        if (!devices.count(key)) {
            order.push_back(key);
        }
        return devices[key];
    };
    nlohmann::json runners = nlohmann::json::array();
    for (const auto& r : plan.runners) {
        if (!r.params_device.empty()) {
            DeviceTotals& p = at(r.params_device);
            p.weights += r.weights_bytes;
            p.largest_alloc  = std::max(p.largest_alloc, r.weights_largest_alloc);
            p.largest_tensor = std::max(p.largest_tensor, r.weights_largest_tensor);
        }
        if (!r.device.empty()) {
            // --offload-to-cpu copies all weights to the compute device for each compute.
            DeviceTotals& d = at(r.device);
            d.weights += r.runtime_weights_bytes;
            d.compute += r.compute_bytes;
            d.largest_alloc = std::max({d.largest_alloc, r.runtime_weights_largest_alloc, r.compute_largest_alloc});
            d.largest_tensor = std::max(d.largest_tensor, r.compute_largest_tensor);
            if (r.runtime_weights_bytes > 0) {
                d.largest_tensor = std::max(d.largest_tensor, r.weights_largest_tensor);
            }
        }
        runners.push_back({{"name", r.desc},
                           {"device", device_key(r.device)},
                           {"params_device", device_key(r.params_device)},
                           {"weights_bytes", r.weights_bytes},
                           {"weights_tensors", r.weights_tensors},
                           {"runtime_weights_bytes", r.runtime_weights_bytes},
                           {"compute_bytes", r.compute_bytes},
                           {"compute_first_bytes", r.compute_first_bytes},
                           {"graphs", r.graphs}});
    }
    nlohmann::json out = nlohmann::json::array();
    for (const auto& key : order) {
        const DeviceTotals& d = devices[key];
        out.push_back({{"device", key},
                       {"weights_bytes", d.weights},
                       {"compute_bytes", d.compute},
                       {"largest_alloc_bytes", d.largest_alloc},
                       {"largest_tensor_bytes", d.largest_tensor},
                       {"total_bytes", d.weights + d.compute}});
    }
    const sd_tiling_params_t& tiling = run.gen.vae_tiling_params;
    auto tile                        = [](int requested) { return requested >= 4 ? requested : 32; };  // vae.hpp's default
    nlohmann::json switches          = {
        {"diffusion_fa", run.ctx.diffusion_flash_attn || run.ctx.flash_attn},
        {"flash_attn", run.ctx.flash_attn},
        {"vae_tiling", tiling.enabled},
        {"vae_tile_size", tiling.rel_size_x > 0.f || tiling.rel_size_y > 0.f
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(tile(tiling.tile_size_x) == tile(tiling.tile_size_y)
                                                            ? nlohmann::json(tile(tiling.tile_size_x))
                                                            : nlohmann::json::array({tile(tiling.tile_size_x), tile(tiling.tile_size_y)}))},
        {"vae_tile_overlap", std::max(std::min(tiling.target_overlap, 0.5f), 0.0f)},
        {"offload_to_cpu", run.ctx.offload_params_to_cpu},
        {"clip_on_cpu", run.ctx.clip_on_cpu},
        {"vae_on_cpu", run.ctx.vae_on_cpu},
        {"max_vram", run.ctx.max_vram},
        {"cfg_scale", run.gen.sample_params.guidance.txt_cfg},
    };
    return {{"plan", 1},
            {"stage", run.opt.stage},
            {"width", run.gen.get_resolved_width()},
            {"height", run.gen.get_resolved_height()},
            {"switches", switches},
            {"devices", out},
            {"runners", runners}};
}

namespace {
int scale_factor(const Run& run) {
    return run.opt.model_version.rfind("flux2", 0) == 0 ? 16 : 8;
}
}  // namespace

sd::Tensor<float> plan_latent(Run& run, const std::string& stage) {
    if (!run.gen.width_and_height_are_set()) {
        throw StageError(EXIT_USAGE, "--stage " + stage + " --plan: the latent file does not exist yet; give -W and -H");
    }
    int factor = scale_factor(run);
    int64_t w = run.gen.width / factor, h = run.gen.height / factor;
    if (w < 1 || h < 1 || w > MAX_LATENT_SIDE || h > MAX_LATENT_SIDE) {
        throw StageError(EXIT_USAGE, "--stage " + stage + ": size " + std::to_string(run.gen.width) + "x" + std::to_string(run.gen.height) +
                                         " (-W/-H): use " + std::to_string(factor) + ".." + std::to_string(MAX_LATENT_SIDE * factor) +
                                         " pixels per side");
    }
    return sd::Tensor<float>({w, h, LATENT_CHANNELS, 1});
}

SDStageTensors plan_condition(Run& run) {
    int64_t dim = dit_context_dim(run.ctx.diffusion_model_path);
    if (dim <= 0) {
        throw StageError(EXIT_MODEL_LOAD, "--diffusion-model '" + run.ctx.diffusion_model_path +
                                              "': no txt_in.weight, so --plan cannot shape the conditioning; pass --load-embeddings of an existing file");
    }
    int64_t tokens = run.opt.plan_tokens;
    if (tokens < 1 || tokens > MAX_CONDITION_TOKENS) {
        throw StageError(EXIT_USAGE, "--plan-tokens " + std::to_string(tokens) + ": use 1.." + std::to_string(MAX_CONDITION_TOKENS));
    }
    SDStageTensors condition = {{"c_crossattn", sd::Tensor<float>({dim, tokens})}};
    if (run.gen.sample_params.guidance.txt_cfg != 1.f) {
        condition.emplace_back("uncond_c_crossattn", sd::Tensor<float>({dim, tokens}));
    }
    return condition;
}

ExitCode finish_plan(Run& run, nlohmann::json extra) {
    nlohmann::json report = plan_report(run);
    report.update(extra);
    run.events.result(report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return EXIT_OK;
}

}  // namespace stage
