<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>EngineBuild</name>
    <message>
        <source>compiling {percent} %</source>
        <translation>正在编译 {percent}%</translation>
    </message>
    <message>
        <source>compiling {done}/{total}</source>
        <translation>正在编译 {done}/{total}</translation>
    </message>
    <message>
        <source>downloading the source</source>
        <translation>正在下载源代码</translation>
    </message>
    <message>
        <source>applying Stepwise's patches</source>
        <translation>正在应用 Stepwise 的补丁</translation>
    </message>
    <message>
        <source>configuring</source>
        <translation>正在配置</translation>
    </message>
    <message>
        <source>compiling</source>
        <translation>正在编译</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>{stage}, {elapsed} elapsed, no estimate yet</source>
        <translation>{stage}，已用 {elapsed}，暂无预计剩余时间</translation>
    </message>
    <message>
        <source>{stage}, {elapsed} elapsed, taking longer than estimated</source>
        <translation>{stage}，已用 {elapsed}，比预计的时间长</translation>
    </message>
    <message>
        <source>{stage}, {elapsed} elapsed, about {left} left</source>
        <translation>{stage}，已用 {elapsed}，约剩 {left}</translation>
    </message>
    <message>
        <source>Building a faster engine ({progress}); runs use the current one until then.</source>
        <translation>正在构建更快的引擎（{progress}）；在此之前运行使用现有引擎。</translation>
    </message>
    <message>
        <source>Building the engine ({progress}); generating works when it is done.</source>
        <translation>正在构建引擎（{progress}）；构建完成后即可生成。</translation>
    </message>
    <message>
        <source>The engine is ready; the next run uses it.</source>
        <translation>引擎已就绪；下一次运行将使用它。</translation>
    </message>
    <message>
        <source>The engine build stopped without an engine; its log: {log}</source>
        <translation>引擎构建已停止，未生成引擎；日志：{log}</translation>
    </message>
    <message>
        <source>The engine build stopped without an engine.</source>
        <translation>引擎构建已停止，未生成引擎。</translation>
    </message>
    <message>
        <source>The faster engine could not be built; runs use the current one. Its log: {log}</source>
        <translation>更快的引擎未能构建；运行继续使用现有引擎。日志：{log}</translation>
    </message>
</context>
</TS>
