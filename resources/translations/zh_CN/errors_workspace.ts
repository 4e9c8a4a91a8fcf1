<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>errors</name>
    <message>
        <source>{path} is not a PNG file.</source>
        <translation>{path} 不是 PNG 文件。</translation>
    </message>
    <message>
        <source>Choose a PNG saved by Stepwise.</source>
        <translation>请选择由 Stepwise 保存的 PNG 文件。</translation>
    </message>
    <message>
        <source>Cannot read {path}: {reason}.</source>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that the file exists and can be read.</source>
        <translation>请检查文件是否存在且可读取。</translation>
    </message>
</context>
</TS>
