<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Measure</name>
    <message>
        <source>Cancelled; the partial report is in {path}</source>
        <translation>已取消；部分报告在 {path}</translation>
    </message>
    <message>
        <source>Changed: {changes}</source>
        <translation>已更改：{changes}</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Done; the report is in {path}</source>
        <translation>完成；报告在 {path}</translation>
    </message>
    <message>
        <source>Make these this computer's defaults?
{changes}</source>
        <translation>将以下设置作为这台电脑的默认值？
{changes}</translation>
    </message>
    <message>
        <source>Measure this computer</source>
        <translation>测量这台电脑</translation>
    </message>
    <message>
        <source>Measure this computer…</source>
        <translation>测量这台电脑…</translation>
    </message>
    <message>
        <source>Measuring failed: {message}</source>
        <translation>测量失败：{message}</translation>
    </message>
    <message>
        <source>Nothing to change</source>
        <translation>无需更改</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>The settings are already what it chose.</source>
        <translation>当前设置已经是它选择的设置。</translation>
    </message>
    <message>
        <source>Use these settings on this computer…</source>
        <translation>在这台电脑上使用这些设置…</translation>
    </message>
    <message>
        <source>Use these settings?</source>
        <translation>使用这些设置？</translation>
    </message>
    <message>
        <source>about {time} left</source>
        <translation>约剩 {time}</translation>
    </message>
    <message>
        <source>{minutes} min</source>
        <translation>{minutes} 分钟</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>{what} ({done} of {total})</source>
        <translation>{what}（第 {done} 项，共 {total} 项）</translation>
    </message>
</context>
</TS>
