<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>The engine failed.</source>
        <translation>引擎运行失败。</translation>
    </message>
    <message>
        <source>The engine refused its command line.</source>
        <translation>引擎拒绝了它的命令行。</translation>
    </message>
    <message>
        <source>This is a bug in Stepwise; please report it with the engine log.</source>
        <translation>这是 Stepwise 的缺陷；请附上引擎日志报告它。</translation>
    </message>
    <message>
        <source>A model file could not be loaded.</source>
        <translation>无法加载模型文件。</translation>
    </message>
    <message>
        <source>Check the model files under Generate → Setup → Models; each must be the right kind of file.</source>
        <translation>请检查“生成 → 配置 → 模型”下的模型文件；每个都必须是正确类型的文件。</translation>
    </message>
    <message>
        <source>The engine ran out of memory.</source>
        <translation>引擎内存不足。</translation>
    </message>
    <message>
        <source>Try a smaller image, turn on VAE tiling, or run the text encoder and VAE on the CPU.</source>
        <translation>可尝试：使用更小的图像、开启 VAE 分块，或在 CPU 上运行文本编码器和 VAE。</translation>
    </message>
    <message>
        <source>An input file of the engine is missing or damaged.</source>
        <translation>引擎的某个输入文件缺失或已损坏。</translation>
    </message>
    <message>
        <source>Run the stage that makes it again.</source>
        <translation>请重新运行生成它的阶段。</translation>
    </message>
    <message>
        <source>The engine could not write its output.</source>
        <translation>引擎无法写入输出。</translation>
    </message>
    <message>
        <source>Check that the run folder is writable and the disk has free space.</source>
        <translation>请检查运行文件夹是否可写、磁盘是否有剩余空间。</translation>
    </message>
    <message>
        <source>The engine stopped unexpectedly.</source>
        <translation>引擎意外停止。</translation>
    </message>
    <message>
        <source>Try again; if it keeps happening, report it with the engine log.</source>
        <translation>请重试；如果反复出现，请附上引擎日志报告它。</translation>
    </message>
    <message>
        <source>The engine sent something Stepwise does not understand.</source>
        <translation>引擎发送了 Stepwise 无法理解的内容。</translation>
    </message>
    <message>
        <source>Rebuild the engine (python native/build.py) so it matches this version.</source>
        <translation>请重新构建引擎（python native/build.py），使其与此版本匹配。</translation>
    </message>
    <message>
        <source>The engine stopped.</source>
        <translation>引擎已停止。</translation>
    </message>
    <message>
        <source>Suspended; the run can be resumed from its last checkpoint.</source>
        <translation>已挂起；可从最后一个检查点继续运行。</translation>
    </message>
    <message>
        <source>Cancelled.</source>
        <translation>已取消。</translation>
    </message>
    <message>
        <source>The GPU driver reset while the engine was running (device lost).</source>
        <translation>引擎运行时 GPU 驱动被重置（设备丢失）。</translation>
    </message>
    <message>
        <source>Update the GPU driver, close other GPU programs, or run on the CPU.</source>
        <translation>请更新 GPU 驱动、关闭其他使用 GPU 的程序，或在 CPU 上运行。</translation>
    </message>
    <message>
        <source>The engine could not start Vulkan on this computer.</source>
        <translation>引擎无法在这台计算机上启动 Vulkan。</translation>
    </message>
    <message>
        <source>Install or update the GPU driver, or choose the CPU under Devices.</source>
        <translation>请安装或更新 GPU 驱动，或在“设备”下选择 CPU。</translation>
    </message>
    <message>
        <source>The engine reported: {engine}</source>
        <translation>引擎报告：{engine}</translation>
    </message>
    <message>
        <source>The engine could not open a file: {opened}</source>
        <translation>引擎无法打开文件：{opened}</translation>
    </message>
    <message>
        <source>The engine was stopped by {signal}.</source>
        <translation>引擎被 {signal} 终止。</translation>
    </message>
    <message>
        <source>The engine exited with the unknown status {code}.</source>
        <translation>引擎以未知状态 {code} 退出。</translation>
    </message>
    <message>
        <source>Stage {stage} must run before {wanted}.</source>
        <translation>阶段 {stage} 必须在 {wanted} 之前运行。</translation>
    </message>
    <message>
        <source>Unexpected error in stage {stage}: {error}</source>
        <translation>阶段 {stage} 中出现意外错误：{error}</translation>
    </message>
    <message>
        <source>The run ended without a terminal event.</source>
        <translation>运行结束时没有发出终止事件。</translation>
    </message>
    <message>
        <source>Cannot read the model file {path}: {reason}.</source>
        <translation>无法读取模型文件 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check the model files under Generate → Setup → Models.</source>
        <translation>请检查“生成 → 配置 → 模型”下的模型文件。</translation>
    </message>
    <message>
        <source>The model file {path} does not exist.</source>
        <translation>模型文件 {path} 不存在。</translation>
    </message>
    <message>
        <source>Choose the model file again under Generate → Setup → Models.</source>
        <translation>请在“生成 → 配置 → 模型”下重新选择模型文件。</translation>
    </message>
    <message>
        <source>The final latent {path} holds {count} NaN or infinite values ({name}): it cannot be decoded to a picture.</source>
        <translation>最终潜变量 {path} 含有 {count} 个 NaN 或无穷值（{name}）：无法解码为图片。</translation>
    </message>
    <message>
        <source>Run diffuse again (change the seed or the steps), or decode an earlier step; a different device or flash attention setting may avoid it.</source>
        <translation>请重新运行扩散（更换种子或步数），或解码更早的一步；换一个设备或 flash attention 设置也许能避免。</translation>
    </message>
    <message>
        <source>The VAE decode produced a picture of one colour (value {value}) in {path}: the decode failed without saying so (often the device ran out of memory).</source>
        <translation>VAE 解码在 {path} 生成了单一颜色（值 {value}）的图片：解码悄然失败（通常是设备内存不足）。</translation>
    </message>
    <message>
        <source>Stepwise retries it tiled, then on the CPU; if that fails too, turn on VAE tiling with smaller tiles or decode on the CPU.</source>
        <translation>Stepwise 会先分块重试，再在 CPU 上重试；如果仍然失败，请开启更小分块的 VAE 分块，或在 CPU 上解码。</translation>
    </message>
    <message>
        <source>The file {path} does not exist.</source>
        <translation>文件 {path} 不存在。</translation>
    </message>
    <message>
        <source>A mask needs an image to inpaint.</source>
        <translation>蒙版需要一张图像才能重绘。</translation>
    </message>
    <message>
        <source>The run's copy {path} of {source} cannot be read.</source>
        <translation>无法读取运行中 {source} 的副本 {path}。</translation>
    </message>
    <message>
        <source>The run's copy {path} of {source} changed since the run began.</source>
        <translation>运行中 {source} 的副本 {path} 自运行开始后已被更改。</translation>
    </message>
    <message>
        <source>Start a new run with the original file.</source>
        <translation>请用原始文件开始新的运行。</translation>
    </message>
    <message>
        <source>The tensor file {path} does not exist.</source>
        <translation>张量文件 {path} 不存在。</translation>
    </message>
    <message>
        <source>The tensor file {path} cannot be read: {reason}.</source>
        <translation>无法读取张量文件 {path}：{reason}。</translation>
    </message>
    <message>
        <source>The tensor file {path} is damaged: {what} at byte {offset}.</source>
        <translation>张量文件 {path} 已损坏：第 {offset} 字节处 {what}。</translation>
    </message>
    <message>
        <source>Run the stage that writes it again.</source>
        <translation>请重新运行写出它的阶段。</translation>
    </message>
    <message>
        <source>Rebuild the engine with `python native/build.py`.</source>
        <translation>请用 `python native/build.py` 重新构建引擎。</translation>
    </message>
    <message>
        <source>{path} --list-samplers printed no JSON object.</source>
        <translation>{path} --list-samplers 没有输出 JSON 对象。</translation>
    </message>
    <message>
        <source>{path} --list-samplers: "samplers" and "schedulers" must be lists.</source>
        <translation>{path} --list-samplers：“samplers”和“schedulers”必须是列表。</translation>
    </message>
    <message>
        <source>{path} --list-samplers: too many entries.</source>
        <translation>{path} --list-samplers：条目过多。</translation>
    </message>
    <message>
        <source>{path} --list-samplers: empty or repeated names.</source>
        <translation>{path} --list-samplers：名称为空或重复。</translation>
    </message>
    <message>
        <source>{path} --list-samplers: bad sampler entry {entry}.</source>
        <translation>{path} --list-samplers：采样器条目 {entry} 有误。</translation>
    </message>
    <message>
        <source>{path} --list-samplers: bad scheduler name {entry}.</source>
        <translation>{path} --list-samplers：调度器名称 {entry} 有误。</translation>
    </message>
    <message>
        <source>{path} gave no device list (its answer is not a JSON list).</source>
        <translation>{path} 没有给出设备列表（它的回答不是 JSON 列表）。</translation>
    </message>
    <message>
        <source>{path} gave no {what} list (exit code {code}).</source>
        <translation>{path} 没有给出 {what} 列表（退出码 {code}）。</translation>
    </message>
    <message>
        <source>{path} could not give its {what} ({reason}).</source>
        <translation>{path} 无法给出它的 {what}（{reason}）。</translation>
    </message>
    <message>
        <source>{path} stopped while planning (exit code {code}).</source>
        <translation>{path} 在规划内存时停止（退出码 {code}）。</translation>
    </message>
    <message>
        <source>The engine's memory plan could not be read: {reason}</source>
        <translation>无法读取引擎的内存规划：{reason}</translation>
    </message>
    <message>
        <source>The engine sent a line of {size} bytes (limit {limit}).</source>
        <translation>引擎发送了一行 {size} 字节的内容（上限 {limit}）。</translation>
    </message>
    <message>
        <source>The engine sent a line that is not JSON: {line}</source>
        <translation>引擎发送了一行不是 JSON 的内容：{line}</translation>
    </message>
    <message>
        <source>The engine sent JSON that is not an object: {line}</source>
        <translation>引擎发送的 JSON 不是对象：{line}</translation>
    </message>
    <message>
        <source>The engine speaks event protocol version {version}; this Stepwise needs {needed}.</source>
        <translation>引擎使用事件协议版本 {version}；此 Stepwise 需要 {needed}。</translation>
    </message>
    <message>
        <source>The engine's {event} event lacks the field {field}.</source>
        <translation>引擎的 {event} 事件缺少字段 {field}。</translation>
    </message>
    <message>
        <source>The engine's {event} event has {field} = {value}, expected {expected}.</source>
        <translation>引擎的 {event} 事件中 {field} = {value}，应为 {expected}。</translation>
    </message>
    <message>
        <source>The engine's stopped event has the unknown reason {reason}.</source>
        <translation>引擎的停止事件带有未知原因 {reason}。</translation>
    </message>
    <message>
        <source>The engine stopped responding.</source>
        <translation>引擎停止响应。</translation>
    </message>
    <message>
        <source>It was stopped; try again, and report it with the engine log if it repeats.</source>
        <translation>它已被停止；请重试，如果反复出现，请附上引擎日志报告它。</translation>
    </message>
    <message>
        <source>The engine sent more than {count} lines that are not events; the last: {line}</source>
        <translation>引擎发送了超过 {count} 行不是事件的内容；最后一行：{line}</translation>
    </message>
    <message>
        <source>The engine (pid {pid}) survived SIGKILL.</source>
        <translation>引擎（pid {pid}）在 SIGKILL 后仍未退出。</translation>
    </message>
    <message>
        <source>The engine exited successfully without reporting its outputs.</source>
        <translation>引擎成功退出，但没有报告它的输出。</translation>
    </message>
    <message>
        <source>The engine could not be started: {reason}.</source>
        <translation>无法启动引擎：{reason}。</translation>
    </message>
    <message>
        <source>The engine sent nothing for {seconds} s.</source>
        <translation>引擎已 {seconds} 秒没有发送任何内容。</translation>
    </message>
    <message>
        <source>The engine reported a file outside the run folder: {output}</source>
        <translation>引擎报告了运行文件夹之外的文件：{output}</translation>
    </message>
    <message>
        <source>The engine reported an output outside the run folder: {output}</source>
        <translation>引擎报告了运行文件夹之外的输出：{output}</translation>
    </message>
    <message>
        <source>The run manifest {path} is damaged.</source>
        <translation>运行清单 {path} 已损坏。</translation>
    </message>
    <message>
        <source>Start the run again; its checkpoints cannot be trusted.</source>
        <translation>请重新开始运行；它的检查点不可信。</translation>
    </message>
    <message>
        <source>{path} is not a run folder (no {file}).</source>
        <translation>{path} 不是运行文件夹（没有 {file}）。</translation>
    </message>
    <message>
        <source>Choose the folder a run was written to.</source>
        <translation>请选择写入过运行的文件夹。</translation>
    </message>
    <message>
        <source>There is no valid checkpoint for step {step}.</source>
        <translation>第 {step} 步没有有效的检查点。</translation>
    </message>
    <message>
        <source>The prepare stage has not recorded the engine's size.</source>
        <translation>准备阶段没有记录引擎的尺寸。</translation>
    </message>
    <message>
        <source>Cannot read the diffusion model's header {path}: {reason}.</source>
        <translation>无法读取扩散模型的文件头 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Choose the FLUX.2 klein diffusion model file.</source>
        <translation>请选择 FLUX.2 klein 扩散模型文件。</translation>
    </message>
    <message>
        <source>The diffusion model {path} has no txt_in.weight: not a FLUX.2 klein model.</source>
        <translation>扩散模型 {path} 没有 txt_in.weight：不是 FLUX.2 klein 模型。</translation>
    </message>
    <message>
        <source>The engine sent nothing for {seconds} s in the {stage} stage and was ended.</source>
        <translation>引擎在 {stage} 阶段 {seconds} 秒没有任何输出，已被结束。</translation>
    </message>
    <message>
        <source>The steps it finished are kept: resume the run (or run the queue again) to continue from its last checkpoint; the engine log may say why.</source>
        <translation>已完成的步骤都保留着：继续这次运行（或再次运行队列）即可从最后一个检查点接着做；引擎日志里可能有原因。</translation>
    </message>
</context>
</TS>
