// sd-stage entry point: flags (sd-cli's plus the stage flags), then one stage (stages.cpp).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>

#include "sd_stage.hpp"
#include "sd_stage_version.h"


namespace stage {

// Ends the process once its work is done, without destructors: control.cpp's stdin reader is a
// detached thread that may be inside Control (a "cancel" arriving, or the front end closing the
// pipe, as the stage returns) and would lock a destroyed mutex (std::system_error, then abort: a
// crash reported for a stage that had ended); freeing the weights and the device is the OS's
// work at exit (a Vulkan device's teardown took up to 0.6 s per stage). Every output was written
// and renamed before this; the events were flushed.
void leave_process(int code) {
    // stdout and stderr by name, not fflush(nullptr): that locks every stream, stdin too, which
    // the reader thread holds while it waits for a line (a hang at exit).
    std::cout.flush();
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(code);
}

void stage_done(Run& run, double seconds, nlohmann::json outputs) {
    run.events.emit("done", {{"seconds", seconds}, {"outputs", std::move(outputs)}});
    leave_process(EXIT_OK);
}

namespace {

ArgOptions stage_options(StageOptions& opt, bool* help) {
    ArgOptions options;
    options.string_options = {
        {"", "--stage", "vae-encode | llm-encode | diffuse | vae-decode", &opt.stage},
        {"", "--save-latent", "vae-encode: init latent; diffuse: final latent (tensor file)", &opt.save_latent},
        {"", "--load-latent", "diffuse: init latent (img2img); vae-decode: latent to decode", &opt.load_latent},
        {"", "--save-ref-latents", "vae-encode: latents of the -r images", &opt.save_ref_latents},
        {"", "--load-ref-latents", "diffuse: latents of the reference images", &opt.load_ref_latents},
        {"", "--save-embeddings", "llm-encode: conditioning file to write", &opt.save_embeddings},
        {"", "--load-embeddings", "diffuse: conditioning file from llm-encode", &opt.load_embeddings},
        {"", "--checkpoint-dir", "diffuse: folder for step_NNN.bin, metadata.json, preview_NNN.png", &opt.checkpoint_dir},
        {"", "--preview", "diffuse: none | proj | vae (vae needs --vae) (default: none)", &opt.preview},
        {"", "--mask-mode", "diffuse: hard | soft: how --mask limits the change (soft: a cell of value m changes in the last m of the steps) (default: hard)", &opt.mask_mode},
        {"-o", "--output", "vae-decode: PNG to write (default: output.png)", &opt.output},
        {"", "--backend", "devices per module, e.g. te=cpu,diffusion=vulkan0,vae=vulkan0", &opt.backend},
        {"", "--params-backend", "cpu: keep weights in RAM (sd.cpp --offload-to-cpu)", &opt.params_backend},
        {"", "--model-version", "model family when a lone VAE / text encoder cannot tell (default: flux2-klein)", &opt.model_version},
    };
    options.int_options = {
        {"", "--resume-step", "diffuse: continue from DIR/step_NNN.bin (needs --checkpoint-dir)", &opt.resume_step},
        {"", "--plan-tokens", "diffuse --plan without the conditioning file: its length in tokens (default: 512)", &opt.plan_tokens},
    };
    options.bool_options = {
        {"-v", "--verbose", "print the library's debug log (stderr)", true, &opt.verbose},
        {"", "--plan", "print what the stage would allocate per device (one JSON object) and exit; loads no weights", true,
         &opt.plan},
    };
    options.manual_options = {
        {"", "--events", "jsonl: stdout carries only JSON-lines events",
         [&opt](int argc, const char** argv, int index) {
             if (index + 1 >= argc || std::strcmp(argv[index + 1], "jsonl") != 0) {
                 return -1;
             }
             opt.events_jsonl = true;
             return 1;
         }},
        {"-h", "--help", "show this help and exit",
         [help](int, const char**, int) {
             *help = true;
             return 0;
         }},
    };
    return options;
}

void print_usage(const std::vector<ArgOptions>& options) {
    std::cout << SD_STAGE_VERSION_STRING << "\n"
              << "Usage: sd-stage --stage vae-encode|llm-encode|diffuse|vae-decode [options]\n"
              << "       sd-stage --list-devices | --list-samplers | --version   (one line on stdout)\n"
              << "Runs one stage of the pipeline with only that stage's model loaded (native/PROTOCOL.md).\n\n"
              << "Stage options:\n";
    options[0].print();
    std::cout << "\nsd-cli context options (same names and meanings):\n";
    options[1].print();
    std::cout << "\nsd-cli generation options (same names and meanings):\n";
    options[2].print();
}

// Every name the library parses back to the same method / scheduler (so the flags accept it).
nlohmann::json list_samplers() {
    nlohmann::json samplers = nlohmann::json::array(), schedulers = nlohmann::json::array();
    for (int i = 0; i < SAMPLE_METHOD_COUNT; i++) {
        auto method      = static_cast<sample_method_t>(i);
        const char* name = sd_sample_method_name(method);
        if (str_to_sample_method(name) == method) {
            samplers.push_back({{"name", name}, {"resumable", sd_stage_sampler_resumable(method)}});
        }
    }
    for (int i = 0; i < SCHEDULER_COUNT; i++) {
        auto scheduler   = static_cast<scheduler_t>(i);
        const char* name = sd_scheduler_name(scheduler);
        if (str_to_scheduler(name) == scheduler) {
            schedulers.push_back(name);
        }
    }
    return {{"samplers", samplers}, {"schedulers", schedulers}};
}

bool has_flag(int argc, const char* argv[], const char* flag) {
    size_t n = std::strlen(flag);
    for (int i = 1; i < argc; i++) {
        if (std::strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '=')) {
            return true;
        }
    }
    return false;
}

// A failed device or host allocation that surfaced as an exception (vulkan-hpp's
// vk::OutOfDeviceMemoryError / OutOfHostMemoryError carry these names in what()).
bool is_out_of_memory(const std::string& what) {
    for (const char* mark : {"OutOfDeviceMemory", "OutOfHostMemory", "out of memory", "OutOfPoolMemory"}) {
        if (what.find(mark) != std::string::npos) {
            return true;
        }
    }
    return false;
}

int bad_usage(Run& run, const std::string& message) {
    run.events.emit("error", {{"code", EXIT_USAGE}, {"message", message}});
    std::fprintf(stderr, "sd-stage: %s\n", message.c_str());
    return EXIT_USAGE;
}

int run_main(Run& run, int argc, const char* argv[]) {
    bool help = false;
    std::vector<ArgOptions> options = {stage_options(run.opt, &help), run.ctx.get_options(), run.gen.get_options()};
    bool parsed                      = false;
    try {
        parsed = parse_options(argc, argv, options);
    } catch (const std::exception&) {  // std::stoi / std::stof on a malformed number
        parsed = false;
    }
    if (help) {
        print_usage(options);
        return EXIT_OK;
    }
    // --plan prints one JSON object on stdout; events (and errors) then go to stderr as lines.
    run.events.open(run.opt.events_jsonl && !run.opt.plan);
    if (!parsed) {
        return bad_usage(run, "bad command line (unknown flag, missing or malformed value; see the log above and sd-stage --help)");
    }
    if (!run.ctx.resolve(IMG_GEN)) {
        return bad_usage(run, "bad context flags (see the log above)");
    }
    if (parsed && !has_flag(argc, argv, "--cfg-scale") && run.opt.model_version == "flux2-klein") {
        // sd-cli's default 7 would encode the negative prompt too and double every DiT step of
        // a distilled model; the reference sd-cli keeps upstream's default.
        run.gen.sample_params.guidance.txt_cfg = 1.f;
        std::fprintf(stderr, "[INFO ] sd-stage: no --cfg-scale given: using 1 for FLUX.2 [klein] (a distilled model)\n");
    }
    if (!run.gen.resolve_and_validate(IMG_GEN, run.ctx.lora_model_dir, run.ctx.hires_upscalers_dir)) {
        return bad_usage(run, "bad generation flags (see the log above)");
    }
    if (run.opt.plan) {
        // LoRAs would be read into weights that plan mode does not allocate: not planned.
        run.gen.lora_map.clear();
        run.gen.high_noise_lora_map.clear();
        run.gen.lora_vec.clear();
        plan_begin();
    }
    try {
        return run_stage(run);
    } catch (const StageStopped& e) {
        // Stopped between phases: no output written (diffuse: the last checkpoint stays valid).
        int step = run.control.last_step();
        if (step >= 0) {
            run.events.emit("stopped", {{"reason", e.reason}, {"step", step}});
        }
        std::fprintf(stderr, "sd-stage: %s (no output written)\n", e.reason.c_str());
        return e.reason == "cancelled" ? EXIT_CANCELLED : EXIT_SUSPENDED;
    } catch (const StageError& e) {
        run.events.emit("error", {{"code", e.code}, {"message", e.what()}});
        std::fprintf(stderr, "sd-stage: error: %s\n", e.what());
        return e.code;
    } catch (const std::bad_alloc&) {
        std::string message = "out of host memory (close other programs, use a smaller size or --params-backend cpu)";
        run.events.emit("error", {{"code", EXIT_OUT_OF_MEMORY}, {"message", message}});
        std::fprintf(stderr, "sd-stage: error: %s\n", message.c_str());
        return EXIT_OUT_OF_MEMORY;
    } catch (const std::exception& e) {
        if (is_out_of_memory(e.what())) {
            std::string message = std::string("out of device memory (") + e.what() +
                                  "): try a smaller size, --diffusion-fa, --vae-tiling, --params-backend cpu or the CPU";
            run.events.emit("error", {{"code", EXIT_OUT_OF_MEMORY}, {"message", message}});
            std::fprintf(stderr, "sd-stage: error: %s\n", message.c_str());
            return EXIT_OUT_OF_MEMORY;
        }
        std::string message = std::string("internal error: ") + e.what() + " (a bug: please report it with the log)";
        run.events.emit("error", {{"code", EXIT_INTERNAL}, {"message", message}});
        std::fprintf(stderr, "sd-stage: error: %s\n", message.c_str());
        return EXIT_INTERNAL;
    }
}

}  // namespace
}  // namespace stage

int main(int argc, const char* argv[]) {
    using namespace stage;
    if (argc > 1 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << SD_STAGE_VERSION_STRING << "\n";
        return EXIT_OK;
    }
    if (argc > 1 && std::strcmp(argv[1], "--list-devices") == 0) {
        // One JSON array on one line, so a front end can offer devices before any stage runs.
        std::cout << list_devices().dump() << "\n";
        return EXIT_OK;
    }
    if (argc > 1 && std::strcmp(argv[1], "--list-samplers") == 0) {
        // One JSON object on one line: what --sampling-method / --scheduler accept, and which
        // samplers --resume-step can continue bit-exactly (sd_stage_sampler_resumable decides).
        std::cout << list_samplers().dump() << "\n";
        return EXIT_OK;
    }
    Run run;
    leave_process(run_main(run, argc, argv));
}
