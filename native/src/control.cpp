// Control: stdin commands and SIGINT, acted on between diffusion steps.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "sd_stage.hpp"

namespace stage {
namespace {

std::atomic<int> g_sigint_count{0};

extern "C" void on_sigint(int) {
    if (g_sigint_count.fetch_add(1) >= 1) {
        std::_Exit(EXIT_SUSPENDED);  // second Ctrl+C: leave now; the last checkpoint stays valid
    }
    std::signal(SIGINT, on_sigint);
}

}  // namespace

void Control::start(Events* events, bool handle_sigint) {
    events_ = events;
    if (handle_sigint) {
        std::signal(SIGINT, on_sigint);
    }
    std::thread([this] { read_stdin(); }).detach();
}

void Control::read_stdin() {
    std::string line;
    while (std::getline(std::cin, line)) {
        nlohmann::json cmd = nlohmann::json::parse(line, nullptr, false);
        if (!cmd.is_object() || !cmd.contains("cmd") || !cmd["cmd"].is_string()) {
            continue;  // not a command: ignore rather than die on a stray line
        }
        std::string name = cmd["cmd"];
        std::lock_guard<std::mutex> lock(mutex_);
        if (name == "pause") {
            paused_ = true;
        } else if (name == "resume") {
            paused_ = false;
        } else if (name == "suspend") {
            stop_ = stop_.empty() ? "suspended" : stop_;
        } else if (name == "cancel") {
            stop_ = "cancelled";
        }
        changed_.notify_all();
    }
}

std::string Control::checkpoint_gate(int step) {
    std::unique_lock<std::mutex> lock(mutex_);
    auto poll_sigint = [this] {
        if (g_sigint_count.load() > 0 && stop_.empty()) {
            stop_ = "suspended";
        }
    };
    poll_sigint();
    if (paused_ && stop_.empty()) {
        events_->emit("paused", {{"step", step}});
        while (paused_ && stop_.empty()) {
            changed_.wait_for(lock, std::chrono::milliseconds(200));
            poll_sigint();
        }
        if (stop_.empty()) {
            events_->emit("resumed", {{"step", step}});
        }
    }
    return stop_;
}

}  // namespace stage
