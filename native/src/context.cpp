// Where a stage's module runs (--backend, --params-backend on 596's mechanisms), the model load
// and the hello event.

#include <cctype>
#include <cstdlib>
#include <map>
#include <sstream>

#include "sd_stage_version.h"
#include "stages.hpp"

namespace stage {

namespace {

std::map<std::string, std::string> parse_backend_map(const std::string& spec) {
    std::map<std::string, std::string> map;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.empty()) {
            continue;
        }
        auto eq = item.find('=');
        if (eq == std::string::npos) {
            throw StageError(EXIT_USAGE, "--backend '" + spec + "': expected module=device pairs like te=cpu,diffusion=vulkan0,vae=vulkan0");
        }
        std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        for (auto& c : value) {
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (key != "te" && key != "diffusion" && key != "vae") {
            throw StageError(EXIT_USAGE, "--backend: unknown module '" + key + "' (use te, diffusion, vae)");
        }
        map[key] = value;
    }
    return map;
}

}  // namespace

// Maps the newer build's per-module device choice onto 596's mechanisms for the one module this
// stage loads: SD_VK_DEVICE picks the main backend; the text encoder and VAE can stay on the CPU.
// Returns the device name the module runs on.
std::string apply_backend(Run& run, const std::string& module) {
    auto map           = parse_backend_map(run.opt.backend);
    std::string device = map.count(module) ? map[module] : "";
    if (!run.opt.params_backend.empty() && run.opt.params_backend != "cpu") {
        throw StageError(EXIT_USAGE, "--params-backend '" + run.opt.params_backend + "': this build keeps weights either on the compute device or in RAM (cpu)");
    }
    if (run.opt.params_backend == "cpu") {
        run.ctx.offload_params_to_cpu = true;
    }
    if (device.empty() || device == "auto") {
        if (module == "te" && run.ctx.clip_on_cpu) return "CPU";
        if (module == "vae" && run.ctx.vae_on_cpu) return "CPU";
        return default_device();
    }
    if (device == "cpu") {
        if (module == "te") {
            run.ctx.clip_on_cpu = true;
            return "CPU";
        }
        if (module == "vae") {
            run.ctx.vae_on_cpu = true;
            return "CPU";
        }
        if (default_device() != "CPU") {
            throw StageError(EXIT_USAGE, "--backend diffusion=cpu: stable-diffusion.cpp 596 cannot keep the diffusion model on the CPU " +
                                             std::string("when a GPU is present; use diffusion=vulkanN or --params-backend cpu"));
        }
        return "CPU";
    }
    if (device.rfind("vulkan", 0) == 0) {
        std::string index = device.substr(6);
        std::string name  = "Vulkan" + index;
        bool found        = false;
        for (const auto& dev : list_devices(false)) {
            found = found || dev["name"] == name;
        }
        if (index.empty() || !found) {
            throw StageError(EXIT_USAGE, "--backend " + module + "=" + device + ": no such device (devices: " + list_devices(false).dump() +
                                             "; a CPU Vulkan driver such as lavapipe is listed only with GGML_VK_VISIBLE_DEVICES=0)");
        }
#ifdef _WIN32
        _putenv_s("SD_VK_DEVICE", index.c_str());
#else
        setenv("SD_VK_DEVICE", index.c_str(), 1);
#endif
        if (module == "te") run.ctx.clip_on_cpu = false;
        if (module == "vae") run.ctx.vae_on_cpu = false;
        return name;
    }
    throw StageError(EXIT_USAGE, "--backend " + module + "=" + device + ": this build knows cpu and vulkanN only");
}

void emit_hello(Run& run, const std::string& device) {
    run.events.emit("hello", {{"version", SD_STAGE_VERSION_STRING},
                              {"pin", SD_STAGE_PIN_STRING},
                              {"stage", run.opt.stage},
                              {"devices", list_devices(false)},
                              {"device", device}});
}

SDCtxPtr load_context(Run& run, int modules, const std::string& model_key, const std::string& path,
                     const std::string& device, bool vae_decode_only) {
    auto t0                       = std::chrono::steady_clock::now();
    sd_ctx_params_t params        = run.ctx.to_sd_ctx_params_t(vae_decode_only, true, false);
    SDCtxPtr ctx;
    {
        Control::Busy busy(run.control);  // a stop request during the load exits at once
        test_hook_slow_load();
        ctx.reset(sd_stage_new_ctx(&params, modules, run.opt.model_version.c_str()));
    }
    run.control.gate();
    if (!ctx) {
        library_failure(EXIT_MODEL_LOAD, "loading '" + path + "' failed (see the log above): check that it is a FLUX.2 [klein] " +
                                             model_key + " model and not truncated");
    }
    run.events.emit("load", {{"model", model_key}, {"path", path}, {"device", device}, {"seconds", seconds_since(t0)},
                             {"version", sd_stage_version_name(ctx.get())}});
    return ctx;
}

}  // namespace stage
