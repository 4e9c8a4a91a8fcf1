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
        <source>time left unknown until each stage has run once</source>
        <translation>每个阶段在这台电脑上运行过一次后才能估计剩余时间</translation>
    </message>
</context>
</TS>
