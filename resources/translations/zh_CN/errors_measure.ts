<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>Cannot write the shape-only models into {path}: {reason}</source>
        <translation>无法将仅含形状的模型写入 {path}：{reason}</translation>
    </message>
    <message>
        <source>Choose your model files in the Generate tab, or free some disk space.</source>
        <translation>请在“生成”页选择你的模型文件，或腾出一些磁盘空间。</translation>
    </message>
    <message>
        <source>Give sizes like 352x864,1024x1024.</source>
        <translation>请给出类似 352x864,1024x1024 的尺寸。</translation>
    </message>
    <message>
        <source>{value} is not a size (WIDTHxHEIGHT, multiples of 16)</source>
        <translation>{value} 不是尺寸（宽x高，需为 16 的倍数）</translation>
    </message>
</context>
</TS>
