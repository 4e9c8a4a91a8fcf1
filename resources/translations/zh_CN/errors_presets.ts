<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>The preset {preset} needs words for its prompt: {template}</source>
        <translation>预设 {preset} 的提示词需要填写内容：{template}</translation>
    </message>
    <message>
        <source>Give --prompt, e.g. --prompt "{example}".</source>
        <translation>请给出 --prompt，例如 --prompt "{example}"。</translation>
    </message>
</context>
</TS>
