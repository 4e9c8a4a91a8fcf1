<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>The engine call was stopped because its window closed.</source>
        <translation>窗口已关闭，引擎调用已停止。</translation>
    </message>
    <message>
        <source>Build it with: python native/build.py</source>
        <translation>请用以下命令构建：python native/build.py</translation>
    </message>
    <message>
        <source>Build it with: python native/build.py (or set {variable} to its path).</source>
        <translation>请用 python native/build.py 构建（或将 {variable} 设为它的路径）。</translation>
    </message>
    <message>
        <source>Building the engine failed (native/build.py exited with {code}).</source>
        <translation>构建引擎失败（native/build.py 退出码 {code}）。</translation>
    </message>
    <message>
        <source>Building the engine took longer than {seconds} s.</source>
        <translation>构建引擎超过了 {seconds} 秒。</translation>
    </message>
    <message>
        <source>Cannot write to {folder}.</source>
        <translation>无法写入 {folder}。</translation>
    </message>
    <message>
        <source>Check its permissions.</source>
        <translation>请检查它的权限。</translation>
    </message>
    <message>
        <source>Check the folder exists and is writable.</source>
        <translation>请检查该文件夹存在且可写。</translation>
    </message>
    <message>
        <source>Check the path.</source>
        <translation>请检查路径。</translation>
    </message>
    <message>
        <source>Choose a run folder (--run-dir) that is not under a file.</source>
        <translation>请选择不在文件之下的运行文件夹（--run-dir）。</translation>
    </message>
    <message>
        <source>Choose a writable run folder (--run-dir).</source>
        <translation>请选择可写的运行文件夹（--run-dir）。</translation>
    </message>
    <message>
        <source>Choose one of them under Devices in the Generate tab, or with {flag} (cpu always works); if it is a GPU, check that it and its driver are there.</source>
        <translation>请在“生成”选项卡的“设备”中选择其中之一，或使用 {flag}（cpu 总是可用）；如果是 GPU，请检查它及其驱动程序是否存在。</translation>
    </message>
    <message>
        <source>Choose one of: {allowed}.</source>
        <translation>请从以下选项中选择：{allowed}。</translation>
    </message>
    <message>
        <source>Choose the model file (.gguf or .safetensors); this one is truncated or other.</source>
        <translation>请选择模型文件（.gguf 或 .safetensors）；这个文件不完整或是其他类型。</translation>
    </message>
    <message>
        <source>Could not write {path}: {reason}.</source>
        <translation>无法写入 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Free some space or choose a run folder on another disk (--run-dir).</source>
        <translation>请释放一些空间，或选择另一块磁盘上的运行文件夹（--run-dir）。</translation>
    </message>
    <message>
        <source>Free some space or choose another folder, then try again.</source>
        <translation>请释放一些空间或选择另一个文件夹，然后重试。</translation>
    </message>
    <message>
        <source>Name the file with {flag}.</source>
        <translation>请用 {flag} 指定文件。</translation>
    </message>
    <message>
        <source>Name the folder that holds the LoRA files, or leave it empty.</source>
        <translation>请指定存放 LoRA 文件的文件夹，或留空。</translation>
    </message>
    <message>
        <source>Name the model file itself.</source>
        <translation>请指定模型文件本身。</translation>
    </message>
    <message>
        <source>No {name} is given.</source>
        <translation>未指定 {name}。</translation>
    </message>
    <message>
        <source>Read the build log; the README lists the compilers and packages it needs.</source>
        <translation>请查看构建日志；README 列出了所需的编译器和软件包。</translation>
    </message>
    <message>
        <source>The build script {path} is missing.</source>
        <translation>构建脚本 {path} 不存在。</translation>
    </message>
    <message>
        <source>The device {device} chosen for {name} is not one the engine finds now (it finds: {listed}).</source>
        <translation>为 {name} 选择的设备 {device} 现在引擎找不到（它找到的设备：{listed}）。</translation>
    </message>
    <message>
        <source>The disk is full while writing {path}.</source>
        <translation>写入 {path} 时磁盘已满。</translation>
    </message>
    <message>
        <source>The disk of {path} has {free_mb} MB free; the run needs about {need_mb} MB.</source>
        <translation>{path} 所在磁盘只剩 {free_mb} MB；这次运行大约需要 {need_mb} MB。</translation>
    </message>
    <message>
        <source>The engine in {variable} ({path}) does not exist.</source>
        <translation>{variable} 指定的引擎（{path}）不存在。</translation>
    </message>
    <message>
        <source>The engine in {variable} ({path}) is not executable.</source>
        <translation>{variable} 指定的引擎（{path}）不可执行。</translation>
    </message>
    <message>
        <source>The engine path given ({path}) does not exist.</source>
        <translation>指定的引擎路径（{path}）不存在。</translation>
    </message>
    <message>
        <source>The engine path given ({path}) is not executable.</source>
        <translation>指定的引擎路径（{path}）不可执行。</translation>
    </message>
    <message>
        <source>The engine sd-stage is being built right now; generating works when it is done.</source>
        <translation>引擎 sd-stage 正在构建中；构建完成后即可生成。</translation>
    </message>
    <message>
        <source>The engine sd-stage was not found.</source>
        <translation>找不到引擎 sd-stage。</translation>
    </message>
    <message>
        <source>The engine sd-stage was not found: it is not bundled and has not been built yet.</source>
        <translation>找不到引擎 sd-stage：它既未随附，也尚未构建。</translation>
    </message>
    <message>
        <source>The run folder {path} cannot be made: {existing} is a file, not a folder.</source>
        <translation>无法创建运行文件夹 {path}：{existing} 是文件，不是文件夹。</translation>
    </message>
    <message>
        <source>The run folder {path} cannot be written: {existing} is read-only.</source>
        <translation>无法写入运行文件夹 {path}：{existing} 是只读的。</translation>
    </message>
    <message>
        <source>The {name} {path} cannot be read: {reason}.</source>
        <translation>无法读取 {name} {path}：{reason}。</translation>
    </message>
    <message>
        <source>The {name} {path} does not exist.</source>
        <translation>{name} {path} 不存在。</translation>
    </message>
    <message>
        <source>The {name} {path} is not a GGUF or safetensors model.</source>
        <translation>{name} {path} 不是 GGUF 或 safetensors 模型。</translation>
    </message>
    <message>
        <source>The {name} {path} is not a file.</source>
        <translation>{name} {path} 不是文件。</translation>
    </message>
    <message>
        <source>Use a value from {minimum} to {maximum}.</source>
        <translation>请使用 {minimum} 到 {maximum} 之间的值。</translation>
    </message>
    <message>
        <source>Use a {kind} value.</source>
        <translation>请使用 {kind} 类型的值。</translation>
    </message>
    <message>
        <source>The status bar shows the build's progress; Stepwise uses the engine as soon as it is there.</source>
        <translation>状态栏会显示构建进度；引擎一就绪 Stepwise 就会使用它。</translation>
    </message>
    <message>
        <source>{name}: {path} is not a folder.</source>
        <translation>{name}：{path} 不是文件夹。</translation>
    </message>
    <message>
        <source>native/build.py printed a path, but it ({path}) does not exist.</source>
        <translation>native/build.py 给出了路径，但它（{path}）不存在。</translation>
    </message>
    <message>
        <source>native/build.py printed a path, but it ({path}) is not executable.</source>
        <translation>native/build.py 给出了路径，但它（{path}）不可执行。</translation>
    </message>
    <message>
        <source>{name} {value} is not one the engine offers.</source>
        <translation>{name} {value} 不是引擎提供的选项。</translation>
    </message>
    <message>
        <source>{name} cannot be {value}.</source>
        <translation>{name} 不能是 {value}。</translation>
    </message>
</context>
</TS>
