<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationLog</name>
    <message>
        <source>Try: run the stage again; if it fails again, open the engine log.</source>
        <translation>可以试试：再运行一次这个阶段；如果仍然失败，请查看引擎日志。</translation>
    </message>
    <message>
        <source>Try: choose CPU for this stage under Devices, turn on VAE tiling, or use a smaller image.</source>
        <translation>可以试试：在“设备”中为此阶段选择 CPU、打开 VAE 分块，或使用更小的图像。</translation>
    </message>
    <message>
        <source>Try: check the model files under Models; each must be the right kind.</source>
        <translation>可以试试：检查“模型”中的模型文件，每个文件都必须是正确的类型。</translation>
    </message>
    <message>
        <source>Try: choose the engine (sd-stage) in Settings, or build it with python native/build.py.</source>
        <translation>可以试试：在“设置”中选择引擎（sd-stage），或用 python native/build.py 构建它。</translation>
    </message>
    <message>
        <source>Try: choose the file again, then run the stage again.</source>
        <translation>可以试试：重新选择该文件，然后再运行此阶段。</translation>
    </message>
    <message>
        <source>Try: click Run all to continue from the last finished step; the steps already done are kept.</source>
        <translation>可以试试：点击“全部运行”，从最后完成的一步继续；已完成的步骤会保留。</translation>
    </message>
    <message>
        <source>Try: choose CPU for the text encoder under Devices, then Run next stage.</source>
        <translation>可以试试：在“设备”中为文本编码器选择 CPU，然后点击“运行下一阶段”。</translation>
    </message>
    <message>
        <source>Show engine log</source>
        <translation>显示引擎日志</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Engine log</source>
        <translation>引擎日志</translation>
    </message>
    <message>
        <source>The engine has not written anything yet.</source>
        <translation>引擎还没有输出任何内容。</translation>
    </message>
    <message>
        <source>Log of this session</source>
        <translation>本次会话的日志</translation>
    </message>
    <message>
        <source>The log {path} cannot be read: {error}</source>
        <translation>无法读取日志 {path}：{error}</translation>
    </message>
</context>
<context>
    <name>GenerationModels</name>
    <message>
        <source>Not chosen</source>
        <translation>未选择</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>diffusion model</source>
        <translation>扩散模型</translation>
    </message>
    <message>
        <source>text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <source>LoRA folder</source>
        <translation>LoRA 文件夹</translation>
    </message>
    <message>
        <source>{name} ({size})</source>
        <translation>{name}（{size}）</translation>
    </message>
    <message>
        <source>Choose the LoRA folder</source>
        <translation>选择 LoRA 文件夹</translation>
    </message>
    <message>
        <source>Choose the {kind} file.</source>
        <translation>请选择{kind}文件。</translation>
    </message>
    <message>
        <source>{count} LoRA file(s) in {name}.</source>
        <translation>{name} 中有 {count} 个 LoRA 文件。</translation>
    </message>
    <message>
        <source>{name} does not exist. Check the path or choose the file again.</source>
        <translation>{name} 不存在。请检查路径或重新选择文件。</translation>
    </message>
    <message>
        <source>{name} is a folder, not a model file.</source>
        <translation>{name} 是文件夹，不是模型文件。</translation>
    </message>
    <message>
        <source>{name} is not a {kind} file: expected {ext}.</source>
        <translation>{name} 不是{kind}文件：应为 {ext}。</translation>
    </message>
    <message>
        <source>{name} is damaged or incomplete ({size}). Download it again.</source>
        <translation>{name} 已损坏或不完整（{size}）。请重新下载。</translation>
    </message>
    <message>
        <source>{name} ({size}) is small for a FLUX.2 klein {kind}; make sure it is the right file.</source>
        <translation>{name}（{size}）作为 FLUX.2 klein {kind}偏小，请确认文件是否正确。</translation>
    </message>
    <message>
        <source>Optional.</source>
        <translation>可选。</translation>
    </message>
    <message>
        <source>The LoRA folder {name} does not exist. Choose an existing folder or leave it empty.</source>
        <translation>LoRA 文件夹 {name} 不存在。请选择已有的文件夹，或留空。</translation>
    </message>
    <message>
        <source>{name} cannot be read ({error}). Check its permissions.</source>
        <translation>无法读取 {name}（{error}）。请检查文件权限。</translation>
    </message>
    <message>
        <source>Choose the {kind} file</source>
        <translation>选择{kind}文件</translation>
    </message>
    <message>
        <source>Model files ({patterns})</source>
        <translation>模型文件（{patterns}）</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Diffusion model</source>
        <translation>扩散模型</translation>
    </message>
    <message>
        <source>Text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <source>LoRA folder</source>
        <translation>LoRA 文件夹</translation>
    </message>
    <message>
        <source>Describe what to paint in the masked area…</source>
        <translation>描述要在蒙版区域中绘制的内容…</translation>
    </message>
    <message>
        <source>Negative prompt (used only when CFG ≠ 1)</source>
        <translation>反向提示词（仅在 CFG ≠ 1 时使用）</translation>
    </message>
    <message>
        <source>Insert LoRA tag</source>
        <translation>插入 LoRA 标签</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Pick a new seed for every new run</source>
        <translation>每次新运行都使用新的种子</translation>
    </message>
    <message>
        <source>New random seed now</source>
        <translation>立即生成新的随机种子</translation>
    </message>
    <message>
        <source>Image and sampling</source>
        <translation>图像与采样</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>重绘强度</translation>
    </message>
    <message>
        <source>Sampler</source>
        <translation>采样器</translation>
    </message>
    <message>
        <source>Scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <source>CFG scale</source>
        <translation>CFG 系数</translation>
    </message>
    <message>
        <source>Eta (noise)</source>
        <translation>Eta（噪声）</translation>
    </message>
    <message>
        <source>Sampler&apos;s own</source>
        <translation>采样器默认</translation>
    </message>
    <message>
        <source>Noise added back per step by ancestral and SDE samplers (euler_a, dpm++2s_a, er_sde, ddim_trailing, tcd, res_*): 0 none, 1 full. Other samplers ignore it.</source>
        <translation>祖先采样器和 SDE 采样器（euler_a、dpm++2s_a、er_sde、ddim_trailing、tcd、res_*）每步加回的噪声：0 为不加，1 为全部。其他采样器忽略此值。</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>VAE tiling (less memory)</source>
        <translation>VAE 分块（更省内存）</translation>
    </message>
    <message>
        <source>A run is in progress</source>
        <translation>正在运行</translation>
    </message>
    <message>
        <source>Suspend the run and quit? Its finished steps are kept and Stepwise offers to resume it at the next start.</source>
        <translation>挂起运行并退出吗？已完成的步骤会保留，下次启动 Stepwise 时会提示继续。</translation>
    </message>
    <message>
        <source>Suspending after the current step, then quitting…</source>
        <translation>当前步骤完成后挂起，然后退出…</translation>
    </message>
    <message>
        <source>VAE tile size (latent cells)</source>
        <translation>VAE 分块大小（潜空间单元）</translation>
    </message>
    <message>
        <source>Smaller tiles need less memory and take longer.</source>
        <translation>分块越小越省内存，但耗时更长。</translation>
    </message>
    <message>
        <source>Detect devices</source>
        <translation>检测设备</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Hold after the current step; the model stays loaded</source>
        <translation>在当前步骤完成后暂停；模型保持加载</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Suspend</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>Save the current step and free the GPU; resume later, even after a restart</source>
        <translation>保存当前步骤并释放 GPU；之后可继续，即使重启后也可以</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop; the steps already done are kept</source>
        <translation>停止；已完成的步骤会保留</translation>
    </message>
    <message>
        <source>Decode this step</source>
        <translation>解码此步骤</translation>
    </message>
    <message>
        <source>Turn the selected step into a full image with the VAE</source>
        <translation>用 VAE 将所选步骤解码为完整图像</translation>
    </message>
    <message>
        <source>Branch from here</source>
        <translation>从此处分支</translation>
    </message>
    <message>
        <source>Start a new run that keeps the steps up to the selected one and uses the current settings after it</source>
        <translation>新建一次运行：保留到所选步骤为止的结果，之后使用当前设置</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>配置</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Import sd-cli command…</source>
        <translation>导入 sd-cli 命令…</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>Try with demo models</source>
        <translation>试用演示模型</translation>
    </message>
    <message>
        <source>Make tiny demo models and a demo picture (seconds, a few MB) to see the whole workflow before downloading real models</source>
        <translation>生成微型演示模型和一张演示图片（几秒钟，几 MB），在下载真实模型之前先体验完整流程</translation>
    </message>
    <message>
        <source>Preparing the demo models…</source>
        <translation>正在准备演示模型…</translation>
    </message>
    <message>
        <source>The demo models could not be made: {message}</source>
        <translation>无法生成演示模型：{message}</translation>
    </message>
    <message>
        <source>Demo mask</source>
        <translation>演示蒙版</translation>
    </message>
    <message>
        <source>Demo models are ready and run on the CPU. They have random weights, so they paint noise by design: they show the workflow, not real pictures. Choose real FLUX.2 klein files when you want real results.</source>
        <translation>演示模型已就绪，在 CPU 上运行。它们的权重是随机的，因此按设计只会画出噪点：它们用来展示流程，而不是生成真实图片。需要真实效果时，请选择真正的 FLUX.2 klein 模型文件。</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>Show engine log</source>
        <translation>显示引擎日志</translation>
    </message>
    <message>
        <source>Run next stage</source>
        <translation>运行下一阶段</translation>
    </message>
    <message>
        <source>Run all</source>
        <translation>全部运行</translation>
    </message>
    <message>
        <source>Run every stage that is not done yet (Ctrl+Enter)</source>
        <translation>运行所有尚未完成的阶段（Ctrl+Enter）</translation>
    </message>
    <message>
        <source>New run</source>
        <translation>新运行</translation>
    </message>
    <message>
        <source>Forget the current run; the next start makes a new one (cached stages are reused)</source>
        <translation>放弃当前运行；下次开始时新建运行（已缓存的阶段会被复用）</translation>
    </message>
    <message>
        <source>Asking the engine…</source>
        <translation>正在询问引擎…</translation>
    </message>
    <message>
        <source>The next start makes a new run.</source>
        <translation>下次开始时将新建运行。</translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在运行…</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>&lt;b&gt;Unfinished runs&lt;/b&gt;</source>
        <translation>&lt;b&gt;未完成的运行&lt;/b&gt;</translation>
    </message>
    <message>
        <source>Not now</source>
        <translation>以后再说</translation>
    </message>
    <message>
        <source>Save result</source>
        <translation>保存结果</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Imported the sd-cli command. Check the settings, then start.</source>
        <translation>已导入 sd-cli 命令。请检查设置后再开始。</translation>
    </message>
    <message>
        <source>Resume run “{prompt}” at step {step} of {steps}</source>
        <translation>继续运行“{prompt}”：第 {step} / {steps} 步</translation>
    </message>
    <message>
        <source>Fast (latent projection)</source>
        <translation>快速（潜空间投影）</translation>
    </message>
    <message>
        <source>Accurate (VAE, slower)</source>
        <translation>准确（VAE，较慢）</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>The negative prompt does nothing at CFG 1.</source>
        <translation>CFG 为 1 时反向提示词不起作用。</translation>
    </message>
    <message>
        <source>Text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <source>Diffusion</source>
        <translation>扩散</translation>
    </message>
    <message>
        <source>this build cannot list devices yet; CPU and the devices saved in the settings are offered.</source>
        <translation>此版本尚不能列出设备；可选择 CPU 和设置中保存的设备。</translation>
    </message>
    <message>
        <source>No GPU found; everything runs on the CPU.</source>
        <translation>未找到 GPU；全部在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Text to image: choose the size (multiples of 16).</source>
        <translation>文生图：请选择尺寸（16 的倍数）。</translation>
    </message>
    <message>
        <source>Write a prompt first.</source>
        <translation>请先填写提示词。</translation>
    </message>
    <message>
        <source>Loading the diffusion model…</source>
        <translation>正在加载扩散模型…</translation>
    </message>
    <message>
        <source>{stage} failed: {message}</source>
        <translation>{stage}失败：{message}</translation>
    </message>
    <message>
        <source>Pausing after the current step…</source>
        <translation>将在当前步骤完成后暂停…</translation>
    </message>
    <message>
        <source>Suspending after the current step…</source>
        <translation>将在当前步骤完成后挂起…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Choose another folder.</source>
        <translation>请选择其他文件夹。</translation>
    </message>
    <message>
        <source>(no prompt)</source>
        <translation>（无提示词）</translation>
    </message>
    <message>
        <source>CFG {cfg:g}: klein is distilled for CFG 1. Any other value runs the diffusion model twice per step (about twice as slow).</source>
        <translation>CFG {cfg:g}：klein 是按 CFG 1 蒸馏的。其他取值会让扩散模型每步运行两次（大约慢一倍）。</translation>
    </message>
    <message>
        <source>{steps} steps: klein is distilled for about 4; more steps rarely help.</source>
        <translation>{steps} 步：klein 按约 4 步蒸馏，更多步数很少有帮助。</translation>
    </message>
    <message>
        <source>Scheduler “{name}”: “simple” gives klein its flux2-like schedule.</source>
        <translation>调度器“{name}”：“simple”才能给 klein 类似 flux2 的调度。</translation>
    </message>
    <message>
        <source>Sampler “{name}” adds noise every step: a suspended run may not resume exactly.</source>
        <translation>采样器“{name}”每步都会加噪：挂起的运行可能无法精确继续。</translation>
    </message>
    <message>
        <source>Could not ask the engine: {message}</source>
        <translation>无法询问引擎：{message}</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>(no LoRAs in the folder)</source>
        <translation>（文件夹中没有 LoRA）</translation>
    </message>
    <message>
        <source>(choose a LoRA folder to list its LoRAs)</source>
        <translation>（选择 LoRA 文件夹以列出其中的 LoRA）</translation>
    </message>
    <message>
        <source>Fix this under Setup, then start again.</source>
        <translation>请在“配置”页中修正后再开始。</translation>
    </message>
    <message>
        <source>Check the settings, then start again.</source>
        <translation>请检查设置后再开始。</translation>
    </message>
    <message>
        <source>Every stage is done. Change a setting or start a new run.</source>
        <translation>所有阶段都已完成。请修改设置或新建运行。</translation>
    </message>
    <message>
        <source>Try again; if it keeps failing, open the engine log.</source>
        <translation>请重试；如果一直失败，请查看引擎日志。</translation>
    </message>
    <message>
        <source>{stage}…</source>
        <translation>{stage}…</translation>
    </message>
    <message>
        <source>Paused after step {step}. The model stays loaded.</source>
        <translation>已在第 {step} 步后暂停。模型保持加载。</translation>
    </message>
    <message>
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>Done. The result is saved in the run folder with its settings.</source>
        <translation>完成。结果及其参数已保存在运行文件夹中。</translation>
    </message>
    <message>
        <source>Cancelled after step {step}. Run all continues from there.</source>
        <translation>已在第 {step} 步后取消。“全部运行”会从那里继续。</translation>
    </message>
    <message>
        <source>Suspended at step {step} of {steps}</source>
        <translation>已挂起于第 {step} / {steps} 步</translation>
    </message>
    <message>
        <source>Suspended after step {step}; the GPU is free. Resume continues from there, even after a restart.</source>
        <translation>已在第 {step} 步后挂起，GPU 已释放。“继续”会从那里接着运行，即使重启后也可以。</translation>
    </message>
    <message>
        <source>Step {step} selected</source>
        <translation>已选择第 {step} 步</translation>
    </message>
    <message>
        <source>Fix this under Setup, then branch again.</source>
        <translation>请在“配置”页中修正后再分支。</translation>
    </message>
    <message>
        <source>Branching keeps the model, size, seed and sampler; change only the prompt, steps after this one, or devices.</source>
        <translation>分支会保留模型、尺寸、种子和采样器；只能修改提示词、此后的步数或设备。</translation>
    </message>
    <message>
        <source>New run branched from step {step}. Run all continues it.</source>
        <translation>已从第 {step} 步分支出新运行。点击“全部运行”继续。</translation>
    </message>
    <message>
        <source>This run cannot be resumed; start a new one.</source>
        <translation>此运行无法继续；请新建运行。</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
    <message>
        <source>{count} GPU device(s) found.</source>
        <translation>找到 {count} 个 GPU 设备。</translation>
    </message>
    <message>
        <source>From the image: {w}×{h}; the model gets {mw}×{mh}.</source>
        <translation>来自图像：{w}×{h}；模型得到 {mw}×{mh}。</translation>
    </message>
    <message>
        <source>From the image: {w}×{h}.</source>
        <translation>来自图像：{w}×{h}。</translation>
    </message>
    <message>
        <source>From the image: {w}×{h}, aligned to {aw}×{ah}.</source>
        <translation>来自图像：{w}×{h}，对齐为 {aw}×{ah}。</translation>
    </message>
    <message>
        <source>Decoding step {step}…</source>
        <translation>正在解码第 {step} 步…</translation>
    </message>
    <message>
        <source>Step {step}, decoded</source>
        <translation>第 {step} 步（已解码）</translation>
    </message>
    <message>
        <source>Step {step} decoded: {path}</source>
        <translation>第 {step} 步已解码：{path}</translation>
    </message>
    <message>
        <source>Prepared image: {w}×{h}.</source>
        <translation>准备好的图像：{w}×{h}。</translation>
    </message>
    <message>
        <source>Step {step} (preview)</source>
        <translation>第 {step} 步（预览）</translation>
    </message>
    <message>
        <source>The result could not be saved to {path}: {error}</source>
        <translation>无法将结果保存到 {path}：{error}</translation>
    </message>
    <message>
        <source>{name} (not detected)</source>
        <translation>{name}（未检测到）</translation>
    </message>
    <message>
        <source>{stage}: done</source>
        <translation>{stage}：完成</translation>
    </message>
    <message>
        <source>{stage} is done. Run next stage continues.</source>
        <translation>{stage}已完成。点击“运行下一阶段”继续。</translation>
    </message>
    <message>
        <source>Settings could not be saved: {error}</source>
        <translation>无法保存设置：{error}</translation>
    </message>
    <message>
        <source>Generate</source>
        <translation>生成</translation>
    </message>
</context>
<context>
    <name>GenerationResult</name>
    <message>
        <source>The preview of each step and the result appear here.</source>
        <translation>每一步的预览和最终结果会显示在这里。</translation>
    </message>
    <message>
        <source>Text to image: no original.</source>
        <translation>文生图：没有原图。</translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation>并排对比</translation>
    </message>
    <message>
        <source>Show before</source>
        <translation>显示原图</translation>
    </message>
    <message>
        <source>Toggle between the original and the result</source>
        <translation>在原图和结果之间切换</translation>
    </message>
    <message>
        <source>Save result…</source>
        <translation>保存结果…</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>原图</translation>
    </message>
    <message>
        <source>Show after</source>
        <translation>显示结果</translation>
    </message>
    <message>
        <source>Step {step} of {steps} (preview)</source>
        <translation>第 {step} / {steps} 步（预览）</translation>
    </message>
    <message>
        <source>Step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
</context>
<context>
    <name>GenerationStages</name>
    <message>
        <source>Prepare image</source>
        <translation>准备图像</translation>
    </message>
    <message>
        <source>Encode image (VAE)</source>
        <translation>编码图像（VAE）</translation>
    </message>
    <message>
        <source>Encode prompt (LLM)</source>
        <translation>编码提示词（LLM）</translation>
    </message>
    <message>
        <source>Diffuse</source>
        <translation>扩散</translation>
    </message>
    <message>
        <source>Decode (VAE)</source>
        <translation>解码（VAE）</translation>
    </message>
    <message>
        <source>Composite</source>
        <translation>合成</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>cached</source>
        <translation>已缓存</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>suspended</source>
        <translation>已挂起</translation>
    </message>
    <message>
        <source>not needed</source>
        <translation>不需要</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>用时</translation>
    </message>
    <message>
        <source>Runs on {device}</source>
        <translation>运行于 {device}</translation>
    </message>
</context>
<context>
    <name>GenerationSteps</name>
    <message>
        <source>Idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Step {step} of {steps}</source>
        <translation>第 {step} / {steps} 步</translation>
    </message>
    <message>
        <source>Step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
    <message>
        <source>Step {step}: click to select, double-click to enlarge</source>
        <translation>第 {step} 步：单击选择，双击放大</translation>
    </message>
    <message>
        <source>{sps} per step · about {eta} left</source>
        <translation>每步 {sps} · 约剩 {eta}</translation>
    </message>
    <message>
        <source>The preview of step {step} could not be read.</source>
        <translation>无法读取第 {step} 步的预览。</translation>
    </message>
</context>
<context>
    <name>SdCliImportDialog</name>
    <message>
        <source>Import sd-cli command</source>
        <translation>导入 sd-cli 命令</translation>
    </message>
    <message>
        <source>Paste an sd-cli command line (from a .bat, .ps1 or .sh file); line continuations are fine.</source>
        <translation>粘贴一条 sd-cli 命令（来自 .bat、.ps1 或 .sh 文件），可以包含续行符。</translation>
    </message>
    <message>
        <source>Use these settings</source>
        <translation>使用这些设置</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Nothing to note: Stepwise runs this command as it is.</source>
        <translation>没有需要说明的：Stepwise 会按原样执行此命令。</translation>
    </message>
    <message>
        <source>{count} of 3 model files, {w}×{h}, {steps} steps, seed {seed}.</source>
        <translation>3 个模型文件中有 {count} 个，{w}×{h}，{steps} 步，种子 {seed}。</translation>
    </message>
    <message>
        <source>This command cannot be read: {error}</source>
        <translation>无法解析此命令：{error}</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Model files</source>
        <translation>模型文件</translation>
    </message>
    <message>
        <source>Diffusion model</source>
        <translation>扩散模型</translation>
    </message>
    <message>
        <source>Text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <source>LoRA folder</source>
        <translation>LoRA 文件夹</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Flash attention in the diffusion model</source>
        <translation>扩散模型使用 Flash Attention</translation>
    </message>
    <message>
        <source>VAE tiling (less memory)</source>
        <translation>VAE 分块（更省内存）</translation>
    </message>
    <message>
        <source>Memory-map model files</source>
        <translation>内存映射模型文件</translation>
    </message>
    <message>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <source>Built-in engine</source>
        <translation>内置引擎</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>A new language shows after a restart.</source>
        <translation>新语言在重启后生效。</translation>
    </message>
    <message>
        <source>Engine (sd-stage)</source>
        <translation>引擎（sd-stage）</translation>
    </message>
    <message>
        <source>Cache size</source>
        <translation>缓存大小</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <source>Diffusion</source>
        <translation>扩散</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>{name} (not detected)</source>
        <translation>{name}（未检测到）</translation>
    </message>
</context>
</TS>
