<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>"{value}" is not a work policy for the queue</source>
        <translation>“{value}”不是队列的运行策略</translation>
    </message>
    <message>
        <source>Give the minutes without input after which the queue may run (for example 10).</source>
        <translation>请给出无输入多少分钟后队列可以运行（例如 10）。</translation>
    </message>
    <message>
        <source>On Linux, run a desktop session that sets logind's idle hint, or install xprintidle (X11); or use --when HH:MM-HH:MM.</source>
        <translation>在 Linux 上，请使用会设置 logind 空闲提示的桌面会话，或安装 xprintidle（X11）；也可以使用 --when HH:MM-HH:MM。</translation>
    </message>
    <message>
        <source>The idle time must be from 1 to {most} minutes, not {value}</source>
        <translation>空闲时间必须在 1 到 {most} 分钟之间，而不是 {value}</translation>
    </message>
    <message>
        <source>This computer cannot tell how long it has been idle</source>
        <translation>这台电脑无法判断已空闲多久</translation>
    </message>
    <message>
        <source>Use always, idle or hours as HH:MM-HH:MM (for example 01:00-07:00).</source>
        <translation>请使用 always、idle，或 HH:MM-HH:MM 形式的时段（例如 01:00-07:00）。</translation>
    </message>
</context>
</TS>
