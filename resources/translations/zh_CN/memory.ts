<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>MemoryPlan</name>
    <message>
        <source> MB</source>
        <translation> MB</translation>
    </message>
    <message>
        <source>; largest allocation {largest}</source>
        <translation>；最大分配 {largest}</translation>
    </message>
    <message>
        <source>; largest allocation {largest} of {cap}</source>
        <translation>；最大分配 {largest}，上限 {cap}</translation>
    </message>
    <message>
        <source>? GB</source>
        <translation>? GB</translation>
    </message>
    <message>
        <source>Fit settings to the device's memory</source>
        <translation>按设备显存调整设置</translation>
    </message>
    <message>
        <source>Largest GPU allocation</source>
        <translation>GPU 单次最大分配</translation>
    </message>
    <message>
        <source>Largest size without slow settings at this aspect ratio: {w}×{h}</source>
        <translation>此宽高比下无需慢速设置的最大尺寸：{w}×{h}</translation>
    </message>
    <message>
        <source>Lower it for drivers that refuse smaller allocations than they claim.</source>
        <translation>驱动实际拒绝的分配比它声称的更小时，请调低此值。</translation>
    </message>
    <message>
        <source>Memory plan: appears once the models are chosen.</source>
        <translation>内存计划：选好模型后显示。</translation>
    </message>
    <message>
        <source>No memory plan: {message}</source>
        <translation>没有内存计划：{message}</translation>
    </message>
    <message>
        <source>Not even the smallest size fits this device without slow settings.</source>
        <translation>不用慢速设置时，连最小尺寸也放不进此设备。</translation>
    </message>
    <message>
        <source>Plan each stage first and turn on memory savers (flash attention, VAE tiling, the CPU) where needed; every change is recorded in the run. Off: your settings run as they are (an out-of-memory is still retried).</source>
        <translation>先为每个阶段做内存计划，需要时开启省内存的设置（Flash Attention、VAE 分块、CPU）；每次更改都记录在运行中。关闭时：按你的设置原样运行（内存不足时仍会重试）。</translation>
    </message>
    <message>
        <source>Planning memory…</source>
        <translation>正在计算内存计划…</translation>
    </message>
    <message>
        <source>The picture is larger than that: turn on “Only masked” to generate just the masked area at a size that fits.</source>
        <translation>图片比这更大：开启“仅蒙版区域”，只在放得下的尺寸上生成蒙版区域。</translation>
    </message>
    <message>
        <source>VAE decode</source>
        <translation>VAE 解码</translation>
    </message>
    <message>
        <source>VAE encode</source>
        <translation>VAE 编码</translation>
    </message>
    <message>
        <source>VAE tile size</source>
        <translation>VAE 分块大小</translation>
    </message>
    <message>
        <source>VAE tiled, {n}-cell tiles</source>
        <translation>VAE 分块，每块 {n} 格</translation>
    </message>
    <message>
        <source>VAE tiling</source>
        <translation>VAE 分块</translation>
    </message>
    <message>
        <source>an allocation above the cap</source>
        <translation>有一次分配超过上限</translation>
    </message>
    <message>
        <source>as the driver reports</source>
        <translation>按驱动报告</translation>
    </message>
    <message>
        <source>choose the three model files first.</source>
        <translation>请先选择三个模型文件。</translation>
    </message>
    <message>
        <source>device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>diffuse</source>
        <translation>扩散</translation>
    </message>
    <message>
        <source>flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>flash attention on</source>
        <translation>开启 Flash Attention</translation>
    </message>
    <message>
        <source>graph cut budget (GiB)</source>
        <translation>图切分预算（GiB）</translation>
    </message>
    <message>
        <source>nothing fits the plan; trying the most frugal setting</source>
        <translation>没有设置能放下；尝试最省内存的设置</translation>
    </message>
    <message>
        <source>on the CPU</source>
        <translation>在 CPU 上</translation>
    </message>
    <message>
        <source>text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <source>the CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>the decode came out one colour</source>
        <translation>解码结果只有一种颜色</translation>
    </message>
    <message>
        <source>the engine is not set up to plan.</source>
        <translation>引擎尚未设置好，无法计划。</translation>
    </message>
    <message>
        <source>the memory plan did not fit the device</source>
        <translation>内存计划超出设备容量</translation>
    </message>
    <message>
        <source>the stage ran out of memory</source>
        <translation>该阶段内存不足</translation>
    </message>
    <message>
        <source>too much for the device</source>
        <translation>超出设备容量</translation>
    </message>
    <message>
        <source>weights partly in RAM</source>
        <translation>部分权重放在内存中</translation>
    </message>
    <message>
        <source>weights partly in RAM (slow)</source>
        <translation>部分权重放在内存中（慢）</translation>
    </message>
    <message>
        <source>{n} GB</source>
        <translation>{n} GB</translation>
    </message>
    <message>
        <source>{stage} at {w}×{h} on {device}: {weights} weights + {compute} compute of {available}</source>
        <translation>{stage}，{w}×{h}，在 {device} 上：权重 {weights} + 计算 {compute}，共有 {available}</translation>
    </message>
    <message>
        <source>{stage} on {device}: {weights} weights + {compute} compute of {available}</source>
        <translation>{stage}，在 {device} 上：权重 {weights} + 计算 {compute}，共有 {available}</translation>
    </message>
    <message>
        <source>{stage}: does not fit, and no other setting is left</source>
        <translation>{stage}：放不下，也没有其他设置可试</translation>
    </message>
    <message>
        <source>{stage}: fits as chosen</source>
        <translation>{stage}：按所选设置即可放下</translation>
    </message>
    <message>
        <source>{stage}: fitted — {settings}</source>
        <translation>{stage}：已调整 — {settings}</translation>
    </message>
    <message>
        <source>{stage}: no plan</source>
        <translation>{stage}：没有计划</translation>
    </message>
    <message>
        <source>{stage}: nothing fits; will try {settings}</source>
        <translation>{stage}：没有设置能放下；将尝试 {settings}</translation>
    </message>
    <message>
        <source>{stage}: {what} {old} → {new} ({why})</source>
        <translation>{stage}：{what} {old} → {new}（{why}）</translation>
    </message>
</context>
</TS>
