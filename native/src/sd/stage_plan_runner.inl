// Plan mode's members of GGMLRunner (stage_plan.hpp), #included inside the class body by the
// patched ggml_extend.hpp (patch 0006): they read the runner's contexts and backends, so they
// must be members; alloc_params_buffer(), compute() and get_param_tensors() call them while
// sd_stage_plan().active is set. Not a standalone header: it has no includes of its own.

    // Lays the weights out as ggml_backend_alloc_ctx_tensors would
    // (one buffer per max_size of the buffer type), allocates nothing and marks them as placed.
    static void plan_weights_layout(ggml_context* ctx, ggml_backend_buffer_type_t buft, size_t* total, size_t* largest_alloc,
                                    size_t* largest_tensor) {
        size_t alignment = ggml_backend_buft_get_alignment(buft);
        size_t max_size  = ggml_backend_buft_get_max_size(buft);
        size_t cur       = 0;
        *total = *largest_alloc = *largest_tensor = 0;
        for (ggml_tensor* t = ggml_get_first_tensor(ctx); t != nullptr; t = ggml_get_next_tensor(ctx, t)) {
            size_t this_size = 0;
            if (t->data == nullptr && t->view_src == nullptr) {
                size_t alloc_size = ggml_backend_buft_get_alloc_size(buft, t);
                *largest_tensor   = std::max(*largest_tensor, alloc_size);
                this_size         = GGML_PAD(alloc_size, alignment);
            }
            if (cur > 0 && cur + this_size > max_size) {
                *total += cur;
                *largest_alloc = std::max(*largest_alloc, cur);
                cur            = this_size;
            } else {
                cur += this_size;
            }
        }
        *total += cur;
        *largest_alloc = std::max(*largest_alloc, cur);
    }

    void plan_params_buffer() {
        SDStagePlan& plan = sd_stage_plan();
        std::lock_guard<std::mutex> lock(plan.mutex);
        SDStagePlanRunner& r                   = plan.runner(this);
        ggml_backend_buffer_type_t params_buft = ggml_backend_get_default_buffer_type(params_backend);
        r.desc                                 = get_desc();
        r.device                               = ggml_backend_buft_name(ggml_backend_get_default_buffer_type(runtime_backend));
        r.params_device                        = ggml_backend_buft_name(params_buft);
        r.weights_tensors                      = ggml_tensor_num(params_ctx);
        plan_weights_layout(params_ctx, params_buft, &r.weights_bytes, &r.weights_largest_alloc, &r.weights_largest_tensor);
        if (params_backend != runtime_backend) {
            size_t largest_tensor = 0;
            plan_weights_layout(params_ctx, ggml_backend_get_default_buffer_type(runtime_backend), &r.runtime_weights_bytes,
                                &r.runtime_weights_largest_alloc, &largest_tensor);
        }
        for (ggml_tensor* t = ggml_get_first_tensor(params_ctx); t != nullptr; t = ggml_get_next_tensor(params_ctx, t)) {
            if (t->data == nullptr && t->view_src == nullptr) {
                t->data = sd_stage_plan_placeholder();
            }
        }
        rebuild_params_tensor_set();
        LOG_DEBUG("%s plan: params buffer size = %.2f MB(%s) (%i tensors)", r.desc.c_str(), r.weights_bytes / (1024.f * 1024.f),
                  r.params_device.c_str(), (int)r.weights_tensors);
    }

    // Plan mode: the graph's compute buffer as ggml_gallocr_reserve would lay it out, recorded;
    // returns zeros of the result's shape (nothing is computed).
    template <typename T>
    std::optional<sd::Tensor<T>> plan_graph(ggml_cgraph* gf, bool no_return) {
        ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(runtime_backend);
        ggml_gallocr_t galloc           = ggml_gallocr_new(buft);
        size_t size                     = 0;
        ggml_gallocr_reserve_n_size(galloc, gf, nullptr, nullptr, &size);
        size_t largest_alloc = ggml_gallocr_get_max_chunk_size(galloc, 0);
        ggml_gallocr_free(galloc);
        size_t largest_tensor = 0;
        for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
            ggml_tensor* t = ggml_graph_node(gf, i);
            if (t->data == nullptr && t->view_src == nullptr && t->buffer == nullptr) {
                largest_tensor = std::max(largest_tensor, ggml_backend_buft_get_alloc_size(buft, t));
            }
        }
        for (ggml_tensor* t = ggml_get_first_tensor(compute_ctx); t != nullptr; t = ggml_get_next_tensor(compute_ctx, t)) {
            if ((t->flags & GGML_TENSOR_FLAG_INPUT) && t->data == nullptr && t->view_src == nullptr) {
                largest_tensor = std::max(largest_tensor, ggml_backend_buft_get_alloc_size(buft, t));
            }
        }
        {
            SDStagePlan& plan = sd_stage_plan();
            std::lock_guard<std::mutex> lock(plan.mutex);
            SDStagePlanRunner& r = plan.runner(this);
            if (r.desc.empty()) {
                r.desc          = get_desc();
                r.device        = ggml_backend_buft_name(buft);
                r.params_device = ggml_backend_buft_name(ggml_backend_get_default_buffer_type(params_backend));
            }
            if (r.graphs == 0) {
                r.compute_first_bytes = size;
            }
            r.graphs++;
            r.compute_bytes          = std::max(r.compute_bytes, size);
            r.compute_largest_alloc  = std::max(r.compute_largest_alloc, largest_alloc);
            r.compute_largest_tensor = std::max(r.compute_largest_tensor, largest_tensor);
        }
        LOG_DEBUG("%s plan: compute buffer size: %.2f MB(%s)", get_desc().c_str(), size / 1024.0 / 1024.0,
                  ggml_backend_buft_name(buft));
        std::optional<sd::Tensor<T>> output = sd::Tensor<T>();
        ggml_tensor* result                 = ggml_get_tensor(compute_ctx, final_result_name.c_str());
        if (!no_return && result != nullptr) {
            output = sd::Tensor<T>(sd::shape_from_ggml(result));
        }
        free_compute_ctx();
        return output;
    }

