<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationPanel</name>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>The mask is empty</source>
        <translation>蒙版是空的</translation>
    </message>
    <message>
        <source>Nothing is painted in the mask, so the whole picture would be repainted. Repaint the whole picture? Choose No to paint the part to change first.</source>
        <translation>蒙版里没有涂任何地方，所以整张图片都会被重绘。要重绘整张图片吗？选“否”可以先涂出要修改的部分。</translation>
    </message>
    <message>
        <source>Nothing ran: paint the part to change, then start.</source>
        <translation>没有运行：请先涂出要修改的部分，再开始。</translation>
    </message>
</context>
<context>
    <name>GenerationSteps</name>
    <message>
        <source>{stage} · {elapsed} so far</source>
        <translation>{stage} · 已用 {elapsed}</translation>
    </message>
</context>
<context>
    <name>Runs</name>
    <message>
        <source>Settings of the run</source>
        <translation>这次运行的设置</translation>
    </message>
    <message>
        <source>The run {file} was made with these settings (prompt: “{prompt}”, seed {seed}, {steps} steps). Load them into the job? Devices you have chosen stay; its model files are taken where they exist here.</source>
        <translation>运行 {file} 使用的设置：提示词“{prompt}”，种子 {seed}，{steps} 步。要把这些设置载入任务吗？你选择的设备保持不变；它的模型文件只有在本机存在时才会采用。</translation>
    </message>
</context>
<context>
    <name>WorkspaceHistory</name>
    <message>
        <source>{time} · seed {seed}</source>
        <translation>{time} · 种子 {seed}</translation>
    </message>
    <message>
        <source>The results of this photo appear here.</source>
        <translation>这张照片的结果会显示在这里。</translation>
    </message>
</context>
<context>
    <name>Workspace</name>
    <message>
        <source>The photo</source>
        <translation>照片</translation>
    </message>
</context>
</TS>
