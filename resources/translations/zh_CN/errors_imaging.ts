<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>'Only masked' needs a mask.</source>
        <translation>“仅蒙版区域”需要一个蒙版。</translation>
    </message>
    <message>
        <source>Cannot read {path}: {reason}.</source>
        <translation>无法读取 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Cannot write to {path}: {reason}.</source>
        <translation>无法写入 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check the file name.</source>
        <translation>请检查文件名。</translation>
    </message>
    <message>
        <source>Choose a folder you can write to.</source>
        <translation>请选择一个可以写入的文件夹。</translation>
    </message>
    <message>
        <source>Choose another output folder.</source>
        <translation>请选择另一个输出文件夹。</translation>
    </message>
    <message>
        <source>Could not encode a PNG.</source>
        <translation>无法编码 PNG。</translation>
    </message>
    <message>
        <source>Feather {value} px is out of range.</source>
        <translation>羽化 {value} 像素超出范围。</translation>
    </message>
    <message>
        <source>Generate at exactly that size (sd-cli: -W {width} -H {height}).</source>
        <translation>请按这个尺寸生成（sd-cli：-W {width} -H {height}）。</translation>
    </message>
    <message>
        <source>Padding {value} px is out of range.</source>
        <translation>边距 {value} 像素超出范围。</translation>
    </message>
    <message>
        <source>Paint the area to repaint.</source>
        <translation>请画出要重绘的区域。</translation>
    </message>
    <message>
        <source>Report this as a bug.</source>
        <translation>请把它作为程序错误报告。</translation>
    </message>
    <message>
        <source>Run `prepare` again to recreate the folder.</source>
        <translation>请再运行一次 `prepare` 重新生成该文件夹。</translation>
    </message>
    <message>
        <source>Run `prepare` first and pass its --out folder.</source>
        <translation>请先运行 `prepare`，并传入它的 --out 文件夹。</translation>
    </message>
    <message>
        <source>Scale it down in an image editor first.</source>
        <translation>请先在图像编辑器中把它缩小。</translation>
    </message>
    <message>
        <source>Scale the mask to the picture's size or paint a new one.</source>
        <translation>请把蒙版缩放到图片的尺寸，或重新画一个。</translation>
    </message>
    <message>
        <source>The file may be truncated or damaged: export it again from your image editor.</source>
        <translation>文件可能不完整或已损坏：请从图像编辑器中重新导出。</translation>
    </message>
    <message>
        <source>The generated picture is {got} px but the prepared input is {want} px.</source>
        <translation>生成的图片是 {got} 像素，但准备好的输入是 {want} 像素。</translation>
    </message>
    <message>
        <source>The mask is empty: paint the area to repaint.</source>
        <translation>蒙版是空的：请画出要重绘的区域。</translation>
    </message>
    <message>
        <source>The mask is {mask_size} px but the picture is {image_size} px.</source>
        <translation>蒙版是 {mask_size} 像素，但图片是 {image_size} 像素。</translation>
    </message>
    <message>
        <source>The target size {value} px for the masked area is out of range.</source>
        <translation>蒙版区域的目标尺寸 {value} 像素超出范围。</translation>
    </message>
    <message>
        <source>This is not the mask that was prepared.</source>
        <translation>这不是准备时使用的蒙版。</translation>
    </message>
    <message>
        <source>This is not the picture that was prepared.</source>
        <translation>这不是准备时使用的图片。</translation>
    </message>
    <message>
        <source>Unknown alignment {value}.</source>
        <translation>未知的对齐方式 {value}。</translation>
    </message>
    <message>
        <source>Unknown fill {value}.</source>
        <translation>未知的填充方式 {value}。</translation>
    </message>
    <message>
        <source>Use 0 to {max} px.</source>
        <translation>请使用 0 到 {max} 像素。</translation>
    </message>
    <message>
        <source>Use a PNG, JPEG, WebP or BMP file.</source>
        <translation>请使用 PNG、JPEG、WebP 或 BMP 文件。</translation>
    </message>
    <message>
        <source>Use grey, blur or none.</source>
        <translation>请使用 grey（灰色）、blur（模糊）或 none（不填充）。</translation>
    </message>
    <message>
        <source>Use pad, crop or scale.</source>
        <translation>请使用 pad（填充）、crop（裁剪）或 scale（缩放）。</translation>
    </message>
    <message>
        <source>Use the original mask, or prepare again with this one.</source>
        <translation>请使用原来的蒙版，或用这个蒙版重新准备。</translation>
    </message>
    <message>
        <source>Use the original picture, or prepare this one again.</source>
        <translation>请使用原来的图片，或重新准备这张图片。</translation>
    </message>
    <message>
        <source>White (or at least 50 % grey) marks what to regenerate.</source>
        <translation>白色（或至少 50% 的灰色）标记要重新生成的部分。</translation>
    </message>
    <message>
        <source>{path} cannot be read ({reason}).</source>
        <translation>无法读取 {path}（{reason}）。</translation>
    </message>
    <message>
        <source>{path} could not be decoded ({reason}).</source>
        <translation>无法解码 {path}（{reason}）。</translation>
    </message>
    <message>
        <source>{path} does not exist.</source>
        <translation>{path} 不存在。</translation>
    </message>
    <message>
        <source>{path} does not list {files}.</source>
        <translation>{path} 没有列出 {files}。</translation>
    </message>
    <message>
        <source>{path} has changed or is damaged since it was prepared.</source>
        <translation>{path} 在准备之后被改动或已损坏。</translation>
    </message>
    <message>
        <source>{path} has format {found}; this version reads {format}.</source>
        <translation>{path} 的格式是 {found}；这个版本只能读取 {format}。</translation>
    </message>
    <message>
        <source>{path} is a file, not a folder.</source>
        <translation>{path} 是一个文件，不是文件夹。</translation>
    </message>
    <message>
        <source>{path} is a folder, not a picture.</source>
        <translation>{path} 是一个文件夹，不是图片。</translation>
    </message>
    <message>
        <source>{path} is damaged ({reason}).</source>
        <translation>{path} 已损坏（{reason}）。</translation>
    </message>
    <message>
        <source>{path} is missing or unreadable.</source>
        <translation>{path} 不存在或无法读取。</translation>
    </message>
    <message>
        <source>{path} is not a Stepwise prepare record.</source>
        <translation>{path} 不是 Stepwise 的准备记录。</translation>
    </message>
    <message>
        <source>{path} is not a picture Stepwise can read.</source>
        <translation>{path} 不是 Stepwise 能读取的图片。</translation>
    </message>
    <message>
        <source>{path} is not a prepared folder (no {record}).</source>
        <translation>{path} 不是准备好的文件夹（没有 {record}）。</translation>
    </message>
    <message>
        <source>{path} is too big ({size} px): Stepwise reads pictures up to {side} px a side and {megapixels} megapixels.</source>
        <translation>{path} 太大（{size} 像素）：Stepwise 能读取的图片每边最多 {side} 像素，总共最多 {megapixels} 百万像素。</translation>
    </message>
    <message>
        <source>{path} is too big: Stepwise reads pictures up to {side} px a side and {megapixels} megapixels.</source>
        <translation>{path} 太大：Stepwise 能读取的图片每边最多 {side} 像素，总共最多 {megapixels} 百万像素。</translation>
    </message>
    <message>
        <source>The reference image {path} is {size} px; references may be up to {max} px a side.</source>
        <translation>参考图 {path} 是 {size} 像素；参考图每边最多 {max} 像素。</translation>
    </message>
    <message>
        <source>Scale it down in an image editor, or choose a smaller picture.</source>
        <translation>请在图像编辑器中把它缩小，或选择一张更小的图片。</translation>
    </message>
    <message>
        <source>The reference image {name} is not a picture.</source>
        <translation>参考图 {name} 不是图片。</translation>
    </message>
    <message>
        <source>A job takes at most {max} reference images.</source>
        <translation>一个任务最多使用 {max} 张参考图。</translation>
    </message>
    <message>
        <source>Remove one before adding another.</source>
        <translation>请先移除一张再添加。</translation>
    </message>
    <message>
        <source>{flag} {value} is out of range.</source>
        <translation>{flag} {value} 超出范围。</translation>
    </message>
    <message>
        <source>Use {minimum} to {maximum}.</source>
        <translation>请使用 {minimum} 到 {maximum}。</translation>
    </message>
    <message>
        <source>See `run --help`.</source>
        <translation>请查看 `run --help`。</translation>
    </message>
    <message>
        <source>No model given for {flags}.</source>
        <translation>没有为 {flags} 指定模型。</translation>
    </message>
    <message>
        <source>Pass the flag or choose the file in Settings.</source>
        <translation>请传入该参数，或在“设置”中选择文件。</translation>
    </message>
</context>
</TS>
