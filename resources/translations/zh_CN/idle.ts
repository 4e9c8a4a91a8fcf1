<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Queue</name>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>, not on battery</source>
        <translation>，不用电池</translation>
    </message>
    <message>
        <source>Always</source>
        <translation>始终</translation>
    </message>
    <message>
        <source>Away after</source>
        <translation>离开判定</translation>
    </message>
    <message>
        <source>From–to, for example 01:00-07:00 (it may cross midnight)</source>
        <translation>起止时间，例如 01:00-07:00（可以跨过午夜）</translation>
    </message>
    <message>
        <source>Hours</source>
        <translation>时段</translation>
    </message>
    <message>
        <source>Not while on battery</source>
        <translation>使用电池时不运行</translation>
    </message>
    <message>
        <source>Only in these hours</source>
        <translation>仅在这些时段</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Run the queue</source>
        <translation>运行队列</translation>
    </message>
    <message>
        <source>Runs: {policy}</source>
        <translation>运行：{policy}</translation>
    </message>
    <message>
        <source>This computer cannot tell how long it has been idle.</source>
        <translation>这台电脑无法判断已空闲多久。</translation>
    </message>
    <message>
        <source>When I am away from the computer</source>
        <translation>我离开电脑时</translation>
    </message>
    <message>
        <source>When you come back, the job in hand stops within seconds (the GPU is free) and continues from its last step later.</source>
        <translation>你回来时，当前任务会在几秒内停下（释放 GPU），之后从最后完成的步骤继续。</translation>
    </message>
    <message>
        <source>always</source>
        <translation>始终</translation>
    </message>
    <message>
        <source>in hours {hours}</source>
        <translation>时段 {hours}</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>waiting until {time}</source>
        <translation>等待到 {time}</translation>
    </message>
    <message>
        <source>waiting: the computer runs on battery</source>
        <translation>等待中：电脑正在使用电池</translation>
    </message>
    <message>
        <source>waiting: this computer cannot tell when it is idle</source>
        <translation>等待中：这台电脑无法判断是否空闲</translation>
    </message>
    <message>
        <source>waiting: you are at the computer</source>
        <translation>等待中：你正在使用电脑</translation>
    </message>
    <message>
        <source>when idle (no input for {minutes} min)</source>
        <translation>空闲时（{minutes} 分钟无输入）</translation>
    </message>
</context>
</TS>
