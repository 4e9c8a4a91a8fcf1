<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>Add fewer pixels: no side may exceed {max} px.</source>
        <translation>请少加一些像素：任何一边都不能超过 {max} 像素。</translation>
    </message>
    <message>
        <source>Give X and Y from 0 and a width and height of at least 1 px.</source>
        <translation>请让 X 和 Y 从 0 起，宽和高至少 1 像素。</translation>
    </message>
    <message>
        <source>Give the pixels to add on the left, top, right and bottom, e.g. 0,0,256,0 (--expand), or leave it empty.</source>
        <translation>请给出左、上、右、下各要添加的像素，例如 0,0,256,0（--expand），或留空。</translation>
    </message>
    <message>
        <source>Give the rectangle as X,Y,W,H in pixels of the photo, e.g. 0,0,512,512 (--context), or leave it empty.</source>
        <translation>请以照片像素给出矩形 X,Y,W,H，例如 0,0,512,512（--context），或留空。</translation>
    </message>
    <message>
        <source>Keep X + W within {width} and Y + H within {height}.</source>
        <translation>请让 X + W 不超过 {width}，Y + H 不超过 {height}。</translation>
    </message>
    <message>
        <source>Open or pass an image (-i/--init-img), or leave --expand out.</source>
        <translation>请打开或传入一张图片（--image），或去掉 --expand。</translation>
    </message>
    <message>
        <source>The canvas expansion {value} has a negative side.</source>
        <translation>画布扩展 {value} 有一边为负数。</translation>
    </message>
    <message>
        <source>The canvas expansion {value} is not four whole numbers L,T,R,B.</source>
        <translation>画布扩展 {value} 不是四个整数 L,T,R,B。</translation>
    </message>
    <message>
        <source>The canvas expansion {value} makes the {size} px picture {expanded} px.</source>
        <translation>画布扩展 {value} 会让 {size} 像素的图片变成 {expanded} 像素。</translation>
    </message>
    <message>
        <source>The canvas expansion {value} needs a picture to expand.</source>
        <translation>画布扩展 {value} 需要一张要扩展的图片。</translation>
    </message>
    <message>
        <source>The context area {value} has no size.</source>
        <translation>上下文区域 {value} 没有大小。</translation>
    </message>
    <message>
        <source>The context area {value} is not four whole numbers X,Y,W,H.</source>
        <translation>上下文区域 {value} 不是四个整数 X,Y,W,H。</translation>
    </message>
    <message>
        <source>The context area {value} reaches outside the {size} px picture.</source>
        <translation>上下文区域 {value} 超出了 {size} 像素的图片。</translation>
    </message>
    <message>
        <source>Use 0 or more pixels on each side.</source>
        <translation>每一边请用 0 或更多像素。</translation>
    </message>
</context>
</TS>
