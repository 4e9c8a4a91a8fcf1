<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>FitGuard</name>
    <message>
        <source>The job is planned again with the change and starts once the plan says it fits.</source>
        <translation>任务会按所做的更改重新规划，规划显示能放下后即开始。</translation>
    </message>
</context>
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Suspended after step {step}. Resume continues from there, even after a restart.</source>
        <translation>已在第 {step} 步后挂起。“继续”会从那里接着运行，重启后也可以。</translation>
    </message>
    <message>
        <source>Checking the memory plan…</source>
        <translation>正在检查显存规划……</translation>
    </message>
    <message>
        <source>Checking the memory plan… the job starts when it is known to fit.</source>
        <translation>正在检查显存规划……确认能放下后任务即开始。</translation>
    </message>
</context>
<context>
    <name>Queue</name>
    <message>
        <source>about {time}</source>
        <translation>约 {time}</translation>
    </message>
    <message>
        <source>about {time} of work</source>
        <translation>约 {time} 的工作量</translation>
    </message>
    <message>
        <source>When the queue may use the computer; it applies at once</source>
        <translation>队列何时可以使用电脑；更改立即生效</translation>
    </message>
    <message>
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <source>How long away, which hours, not on battery</source>
        <translation>离开多久、哪些时段、不用电池时</translation>
    </message>
    <message>
        <source>time left unknown until each stage has run once</source>
        <translation>每个阶段在这台电脑上运行过一次后才能估计剩余时间</translation>
    </message>
</context>
<context>
    <name>GenerationStages</name>
    <message>
        <source>stopped at step {step}</source>
        <translation>停在第 {step} 步</translation>
    </message>
</context>
<context>
    <name>Runs</name>
    <message>
        <source>The queue runs this job; it continues there.</source>
        <translation>这个任务由队列运行，会在队列中继续。</translation>
    </message>
</context>
<context>
    <name>Measure</name>
    <message>
        <source>Stepwise runs each stage of a job on each device of this computer with small dummy inputs: the text encoder, diffusion with flash attention off and on, the VAE decode tiled and untiled, and the largest size that fits. It measures the seconds per step and the memory used, then suggests settings (nothing changes without your yes). It takes a few minutes per device; the time left shows once the first stage is timed. The report is saved in the data folder for you to send with a question.</source>
        <translation>Stepwise 会用小的占位输入，在这台电脑的每个设备上运行任务的每个阶段：文本编码器、关闭和开启 Flash Attention 的扩散、分块与不分块的 VAE 解码，以及能放下的最大尺寸。它测量每步秒数和所用内存，然后建议设置（未经你同意不会更改任何设置）。每个设备需要几分钟；计时完第一个阶段后会显示剩余时间。报告保存在数据文件夹中，提问时可以附上。</translation>
    </message>
    <message>
        <source>Copy the report</source>
        <translation>复制报告</translation>
    </message>
    <message>
        <source>Open its folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <source>The report is on the clipboard.</source>
        <translation>报告已复制到剪贴板。</translation>
    </message>
    <message>
        <source>the text encoder</source>
        <translation>文本编码器</translation>
    </message>
    <message>
        <source>diffusion</source>
        <translation>扩散</translation>
    </message>
    <message>
        <source>the VAE decode</source>
        <translation>VAE 解码</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>{device}: the largest size that fits</source>
        <translation>{device}：能放下的最大尺寸</translation>
    </message>
    <message>
        <source>{device}: {stage}</source>
        <translation>{device}：{stage}</translation>
    </message>
    <message>
        <source>flash attention on</source>
        <translation>开启 Flash Attention</translation>
    </message>
    <message>
        <source>flash attention off</source>
        <translation>关闭 Flash Attention</translation>
    </message>
    <message>
        <source>{text}, {detail}</source>
        <translation>{text}，{detail}</translation>
    </message>
    <message>
        <source>tiled</source>
        <translation>分块</translation>
    </message>
    <message>
        <source>not tiled</source>
        <translation>不分块</translation>
    </message>
</context>
</TS>
