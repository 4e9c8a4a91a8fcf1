<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Measure</name>
    <message>
        <source>{label}: {value}</source>
        <translation>{label}：{value}</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>{n} s</source>
        <translation>{n} 秒</translation>
    </message>
    <message>
        <source>{n} s/step</source>
        <translation>{n} 秒/步</translation>
    </message>
    <message>
        <source>{n} GiB</source>
        <translation>{n} GiB</translation>
    </message>
    <message>
        <source>{n} MiB</source>
        <translation>{n} MiB</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>{setting}: {old} → {new}</source>
        <translation>{setting}：{old} → {new}</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Measured {date}, in {time}.</source>
        <translation>测量于 {date}，用时 {time}。</translation>
    </message>
    <message>
        <source>Engine: {path}</source>
        <translation>引擎：{path}</translation>
    </message>
    <message>
        <source>Models: {note} ({files})</source>
        <translation>模型：{note}（{files}）</translation>
    </message>
    <message>
        <source>{steps} steps per diffusion run; CPU threads: {threads}</source>
        <translation>每次扩散运行 {steps} 步；CPU 线程数：{threads}</translation>
    </message>
    <message>
        <source>Cancelled: this report is partial.</source>
        <translation>已取消：这是部分报告。</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Free</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>Largest single allocation</source>
        <translation>单次最大分配</translation>
    </message>
    <message>
        <source>Half precision (fp16)</source>
        <translation>半精度（fp16）</translation>
    </message>
    <message>
        <source>Devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>What the driver says about {device}: {facts}</source>
        <translation>驱动程序对 {device} 的说明：{facts}</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>Flash attention off</source>
        <translation>关闭 Flash Attention</translation>
    </message>
    <message>
        <source>Flash attention on</source>
        <translation>开启 Flash Attention</translation>
    </message>
    <message>
        <source>On ÷ off</source>
        <translation>开 ÷ 关</translation>
    </message>
    <message>
        <source>Memory planned (off / on)</source>
        <translation>计划内存（关 / 开）</translation>
    </message>
    <message>
        <source>Memory used (off / on)</source>
        <translation>实际内存（关 / 开）</translation>
    </message>
    <message>
        <source>Diffusion: seconds per step</source>
        <translation>扩散：每步秒数</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Compared with the CPU</source>
        <translation>与 CPU 相比</translation>
    </message>
    <message>
        <source>Memory planned</source>
        <translation>计划内存</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>实际内存</translation>
    </message>
    <message>
        <source>The text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>Not tiled</source>
        <translation>不分块</translation>
    </message>
    <message>
        <source>Tiled</source>
        <translation>分块</translation>
    </message>
    <message>
        <source>Memory planned (not tiled / tiled)</source>
        <translation>计划内存（不分块 / 分块）</translation>
    </message>
    <message>
        <source>Memory used (not tiled / tiled)</source>
        <translation>实际内存（不分块 / 分块）</translation>
    </message>
    <message>
        <source>The VAE decode at {size}</source>
        <translation>VAE 解码（{size}）</translation>
    </message>
    <message>
        <source>The largest size that fits (shape {w}:{h})</source>
        <translation>能放下的最大尺寸（比例 {w}:{h}）</translation>
    </message>
    <message>
        <source>{stage} on {device}: {message}</source>
        <translation>{device} 上的 {stage}：{message}</translation>
    </message>
    <message>
        <source>Stages that failed</source>
        <translation>失败的阶段</translation>
    </message>
    <message>
        <source>None: nothing was measured.</source>
        <translation>无：没有测得任何结果。</translation>
    </message>
    <message>
        <source>The settings it suggests</source>
        <translation>建议的设置</translation>
    </message>
    <message>
        <source>This computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <source>Not checked before this release: please tell us what you see</source>
        <translation>此版本发布前未检查的项目：请告诉我们你看到的情况</translation>
    </message>
    <message>
        <source>Stepwise: measure of this computer</source>
        <translation>Stepwise：这台电脑的测量报告</translation>
    </message>
    <message>
        <source>Text encoder runs on</source>
        <translation>文本编码器运行于</translation>
    </message>
    <message>
        <source>Diffusion runs on</source>
        <translation>扩散运行于</translation>
    </message>
    <message>
        <source>VAE runs on</source>
        <translation>VAE 运行于</translation>
    </message>
    <message>
        <source>Flash attention</source>
        <translation>Flash Attention</translation>
    </message>
    <message>
        <source>VAE tiling</source>
        <translation>VAE 分块</translation>
    </message>
    <message>
        <source>Operating system</source>
        <translation>操作系统</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>ANSI code page</source>
        <translation>ANSI 代码页</translation>
    </message>
    <message>
        <source>Console encoding</source>
        <translation>控制台编码</translation>
    </message>
    <message>
        <source>your model files</source>
        <translation>你的模型文件</translation>
    </message>
    <message>
        <source>tiny test models</source>
        <translation>微型测试模型</translation>
    </message>
    <message>
        <source>shape-only models of klein 4B</source>
        <translation>klein 4B 的仅形状模型</translation>
    </message>
    <message>
        <source>shape-only models of klein 9B</source>
        <translation>klein 9B 的仅形状模型</translation>
    </message>
    <message>
        <source>the GPU maker's own Vulkan driver (AMD: the ~2 GB single-allocation limit; speed)</source>
        <translation>GPU 厂商自己的 Vulkan 驱动程序（AMD：约 2 GB 的单次分配上限；速度）</translation>
    </message>
    <message>
        <source>SmartScreen on the unsigned setup .exe</source>
        <translation>未签名安装程序 .exe 的 SmartScreen 提示</translation>
    </message>
    <message>
        <source>a console in the ANSI code page (cp936 on a Chinese Windows)</source>
        <translation>使用 ANSI 代码页的控制台（中文 Windows 上为 cp936）</translation>
    </message>
    <message>
        <source>display scaling (DPI) of the window</source>
        <translation>窗口的显示缩放（DPI）</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <source>Measure reports</source>
        <translation>测量报告</translation>
    </message>
</context>
</TS>
