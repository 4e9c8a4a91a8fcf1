<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>Texts</name>
    <message>
        <source>{title}: {message}</source>
        <translation>{title}：{message}</translation>
    </message>
    <message>
        <source>The {what} file {path} does not exist; choose it again.</source>
        <translation>{what}文件 {path} 不存在；请重新选择。</translation>
    </message>
    <message>
        <source>diffusion model</source>
        <translation>扩散模型</translation>
    </message>
    <message>
        <source>text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <source>LoRA folder</source>
        <translation>LoRA 文件夹</translation>
    </message>
    <message>
        <source>the prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>the negative prompt</source>
        <translation>反向提示词</translation>
    </message>
    <message>
        <source>the sampler</source>
        <translation>采样器</translation>
    </message>
    <message>
        <source>the scheduler</source>
        <translation>调度器</translation>
    </message>
    <message>
        <source>the text encoder (LLM)</source>
        <translation>文本编码器（LLM）</translation>
    </message>
    <message>
        <source>the diffusion model</source>
        <translation>扩散模型</translation>
    </message>
    <message>
        <source>the VAE</source>
        <translation>VAE</translation>
    </message>
    <message>
        <source>Choose that file as the {found} under Model files, and choose the {wanted} file.</source>
        <translation>请在“模型文件”中把该文件选为{found}，再选择{wanted}文件。</translation>
    </message>
</context>
<context>
    <name>JobSettings</name>
    <message>
        <source>Some saved settings were not valid; their defaults are used: {names}</source>
        <translation>部分已保存的设置无效，已改用默认值：{names}</translation>
    </message>
    <message>
        <source>The settings could not be saved: {reason}</source>
        <translation>无法保存设置：{reason}</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
</TS>
