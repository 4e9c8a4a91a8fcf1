<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>Application</name>
    <message>
        <source>Details are in the log file: {0}</source>
        <translation>详细信息见日志文件：{0}</translation>
    </message>
    <message>
        <source>Something went wrong: {0}

Your work is still open; saving the mask now is a good idea.</source>
        <translation>出现了意外错误：{0}

你的工作仍然打开着，建议现在保存蒙版。</translation>
    </message>
    <message>
        <source>Stepwise</source>
        <translation>Stepwise</translation>
    </message>
</context>
<context>
    <name>BrushPanel</name>
    <message>
        <source>100 % gives a hard edge; lower values feather it (Shift+[ and Shift+])</source>
        <translation>100 % 为硬边；数值越低边缘越柔和（Shift+[ 和 Shift+]）</translation>
    </message>
    <message>
        <source>Brush</source>
        <translation>画笔</translation>
    </message>
    <message>
        <source>Brush diameter in image pixels ([ and ])</source>
        <translation>画笔直径，单位为图像像素（[ 和 ]）</translation>
    </message>
    <message>
        <source>Colour of the mask overlay</source>
        <translation>蒙版叠加层的颜色</translation>
    </message>
    <message>
        <source>Display</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Drag a free shape, or click corners and double-click to close; hold Alt to cut it out of the mask (L)</source>
        <translation>拖动画出任意形状，或逐个点击顶点后双击闭合；按住 Alt 则从蒙版中减去（L）</translation>
    </message>
    <message>
        <source>Eraser</source>
        <translation>橡皮擦</translation>
    </message>
    <message>
        <source>Hardness</source>
        <translation>硬度</translation>
    </message>
    <message>
        <source>How strongly one stroke masks</source>
        <translation>单次笔画的蒙版强度</translation>
    </message>
    <message>
        <source>Image and mask</source>
        <translation>图像和蒙版</translation>
    </message>
    <message>
        <source>Image only</source>
        <translation>仅图像</translation>
    </message>
    <message>
        <source>Lasso</source>
        <translation>套索</translation>
    </message>
    <message>
        <source>Mask only</source>
        <translation>仅蒙版</translation>
    </message>
    <message>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <source>Overlay colour</source>
        <translation>叠加颜色</translation>
    </message>
    <message>
        <source>Overlay opacity</source>
        <translation>叠加不透明度</translation>
    </message>
    <message>
        <source>Paint the area to repaint (B)</source>
        <translation>涂抹需要重绘的区域（B）</translation>
    </message>
    <message>
        <source>Remove mask (E)</source>
        <translation>擦除蒙版（E）</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示内容</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Tool</source>
        <translation>工具</translation>
    </message>
</context>
<context>
    <name>CanvasView</name>
    <message>
        <source>Open a picture (Ctrl+O) or drop one here
PNG, JPEG, WebP or BMP

New here? Help → Try with demo models runs the whole workflow in seconds</source>
        <translation>打开一张图像（Ctrl+O）或将图像拖放到此处
支持 PNG、JPEG、WebP 和 BMP

第一次使用？“帮助 → 试用演示模型”可在几秒内走完整个流程</translation>
    </message>
</context>
<context>
    <name>FileFilters</name>
    <message>
        <source>All files</source>
        <translation>所有文件</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>PNG images</source>
        <translation>PNG 图像</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;Actual Pixels (100 %)</source>
        <translation>实际像素 (100 %)(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Fit to Window</source>
        <translation>适合窗口(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Mask</source>
        <translation>蒙版(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Open Image…</source>
        <translation>打开图像(&amp;O)…</translation>
    </message>
    <message>
        <source>&amp;Panels</source>
        <translation>面板(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Redo {0}</source>
        <translation>重做 {0}(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Save Mask</source>
        <translation>保存蒙版(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Undo {0}</source>
        <translation>撤销 {0}(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Apply a Result…</source>
        <translation>应用生成结果…</translation>
    </message>
    <message>
        <source>Blend a generated image back into the original</source>
        <translation>将生成的图像融合回原图</translation>
    </message>
    <message>
        <source>Blur</source>
        <translation>模糊</translation>
    </message>
    <message>
        <source>Brush</source>
        <translation>画笔</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Clear the mask</source>
        <translation>清空蒙版</translation>
    </message>
    <message>
        <source>Could not open the image</source>
        <translation>无法打开图像</translation>
    </message>
    <message>
        <source>Erase the mask</source>
        <translation>擦除蒙版</translation>
    </message>
    <message>
        <source>Eraser</source>
        <translation>橡皮擦</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Fill All</source>
        <translation>全部填充</translation>
    </message>
    <message>
        <source>Fill a free shape or polygon (Alt: cut out)</source>
        <translation>填充任意形状或多边形（Alt：减去）</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>适合</translation>
    </message>
    <message>
        <source>Fit the picture to the window</source>
        <translation>让图像适合窗口大小</translation>
    </message>
    <message>
        <source>Grow</source>
        <translation>扩展</translation>
    </message>
    <message>
        <source>Harder Brush</source>
        <translation>画笔变硬</translation>
    </message>
    <message>
        <source>Image Only</source>
        <translation>仅图像</translation>
    </message>
    <message>
        <source>Image and Mask</source>
        <translation>图像和蒙版</translation>
    </message>
    <message>
        <source>Invert</source>
        <translation>反转</translation>
    </message>
    <message>
        <source>Invert the mask</source>
        <translation>反转蒙版</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Larger Brush</source>
        <translation>增大画笔</translation>
    </message>
    <message>
        <source>Lasso</source>
        <translation>套索</translation>
    </message>
    <message>
        <source>Load Mask</source>
        <translation>载入蒙版</translation>
    </message>
    <message>
        <source>Load Mask…</source>
        <translation>载入蒙版…</translation>
    </message>
    <message>
        <source>Load a mask PNG (white = repaint)</source>
        <translation>载入蒙版 PNG（白色 = 重绘）</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Mask Only</source>
        <translation>仅蒙版</translation>
    </message>
    <message>
        <source>Mask saved to {0}</source>
        <translation>蒙版已保存到 {0}</translation>
    </message>
    <message>
        <source>Mask the whole picture</source>
        <translation>蒙版覆盖整张图像</translation>
    </message>
    <message>
        <source>Move the mask edge inwards</source>
        <translation>将蒙版边缘向内收缩</translation>
    </message>
    <message>
        <source>Move the mask edge outwards</source>
        <translation>将蒙版边缘向外扩展</translation>
    </message>
    <message>
        <source>No image</source>
        <translation>无图像</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open Image</source>
        <translation>打开图像</translation>
    </message>
    <message>
        <source>Open a picture to paint a mask on</source>
        <translation>打开一张图像以绘制蒙版</translation>
    </message>
    <message>
        <source>Paint</source>
        <translation>绘制</translation>
    </message>
    <message>
        <source>Paint the mask</source>
        <translation>绘制蒙版</translation>
    </message>
    <message>
        <source>Preview</source>
        <translation>预览</translation>
    </message>
    <message>
        <source>Redo</source>
        <translation>重做</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Save Mask</source>
        <translation>保存蒙版</translation>
    </message>
    <message>
        <source>Save Mask &amp;As…</source>
        <translation>蒙版另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>Save the mask as a PNG</source>
        <translation>将蒙版保存为 PNG</translation>
    </message>
    <message>
        <source>Show exactly what the model will get</source>
        <translation>显示模型实际收到的输入</translation>
    </message>
    <message>
        <source>Show the picture at 100 %</source>
        <translation>以 100 % 显示图像</translation>
    </message>
    <message>
        <source>Shrink</source>
        <translation>收缩</translation>
    </message>
    <message>
        <source>Smaller Brush</source>
        <translation>减小画笔</translation>
    </message>
    <message>
        <source>Soften the mask edge</source>
        <translation>柔化蒙版边缘</translation>
    </message>
    <message>
        <source>Softer Brush</source>
        <translation>画笔变软</translation>
    </message>
    <message>
        <source>System Default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>The mask has changes that are not saved. Save them first?</source>
        <translation>蒙版有未保存的修改。要先保存吗？</translation>
    </message>
    <message>
        <source>The new language is used from the next start.</source>
        <translation>新语言将在下次启动时生效。</translation>
    </message>
    <message>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <source>Unsaved mask</source>
        <translation>蒙版未保存</translation>
    </message>
    <message>
        <source>Write input.png, mask.png and prepare.json to a folder</source>
        <translation>将 input.png、mask.png 和 prepare.json 写入文件夹</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>{tool} {size} px · hardness {hardness} % · opacity {opacity} %</source>
        <translation>{tool} {size} px · 硬度 {hardness} % · 不透明度 {opacity} %</translation>
    </message>
</context>
<context>
    <name>MaskController</name>
    <message>
        <source>Could not load the mask</source>
        <translation>无法载入蒙版</translation>
    </message>
    <message>
        <source>Could not save the mask</source>
        <translation>无法保存蒙版</translation>
    </message>
    <message>
        <source>Mask size does not match</source>
        <translation>蒙版尺寸不匹配</translation>
    </message>
    <message>
        <source>The mask {file} is {mw}×{mh} pixels, but the image is {iw}×{ih}.

Scale the mask to the image size?</source>
        <translation>蒙版 {file} 为 {mw}×{mh} 像素，而图像为 {iw}×{ih}。

要将蒙版缩放到图像尺寸吗？</translation>
    </message>
</context>
<context>
    <name>MaskHistory</name>
    <message>
        <source>Blur mask</source>
        <translation>模糊蒙版</translation>
    </message>
    <message>
        <source>Brush stroke</source>
        <translation>画笔笔画</translation>
    </message>
    <message>
        <source>Clear mask</source>
        <translation>清空蒙版</translation>
    </message>
    <message>
        <source>Erase</source>
        <translation>擦除</translation>
    </message>
    <message>
        <source>Fill mask</source>
        <translation>填充蒙版</translation>
    </message>
    <message>
        <source>Grow mask</source>
        <translation>扩展蒙版</translation>
    </message>
    <message>
        <source>Invert mask</source>
        <translation>反转蒙版</translation>
    </message>
    <message>
        <source>Lasso erase</source>
        <translation>套索擦除</translation>
    </message>
    <message>
        <source>Lasso fill</source>
        <translation>套索填充</translation>
    </message>
    <message>
        <source>Load mask</source>
        <translation>载入蒙版</translation>
    </message>
    <message>
        <source>Shrink mask</source>
        <translation>收缩蒙版</translation>
    </message>
</context>
<context>
    <name>MaskPanel</name>
    <message>
        <source>Blur</source>
        <translation>模糊</translation>
    </message>
    <message>
        <source>Blur radius</source>
        <translation>模糊半径</translation>
    </message>
    <message>
        <source>Edge</source>
        <translation>边缘</translation>
    </message>
    <message>
        <source>How far grow and shrink move the mask edge</source>
        <translation>扩展和收缩时蒙版边缘移动的距离</translation>
    </message>
    <message>
        <source>Mask</source>
        <translation>蒙版</translation>
    </message>
</context>
<context>
    <name>Messages</name>
    <message>
        <source>Choose a folder you can write to.</source>
        <translation>请选择一个有写入权限的文件夹。</translation>
    </message>
    <message>
        <source>Close other programs or use a smaller image.</source>
        <translation>请关闭其他程序或使用更小的图像。</translation>
    </message>
    <message>
        <source>Free some space or choose another folder.</source>
        <translation>请释放一些空间或选择其他文件夹。</translation>
    </message>
    <message>
        <source>Permission denied.</source>
        <translation>没有权限。</translation>
    </message>
    <message>
        <source>The disk is full.</source>
        <translation>磁盘已满。</translation>
    </message>
    <message>
        <source>The file does not exist.</source>
        <translation>文件不存在。</translation>
    </message>
    <message>
        <source>There is not enough memory for this image.</source>
        <translation>内存不足，无法处理此图像。</translation>
    </message>
</context>
<context>
    <name>PrepareController</name>
    <message>
        <source>(only the masked area: size shown in the preview)</source>
        <translation>（仅蒙版区域：尺寸见预览）</translation>
    </message>
    <message>
        <source>50 % grey</source>
        <translation>50 % 灰色</translation>
    </message>
    <message>
        <source>Cannot paint on this result</source>
        <translation>无法在此结果上继续绘制</translation>
    </message>
    <message>
        <source>Choose the generated image</source>
        <translation>选择生成的图像</translation>
    </message>
    <message>
        <source>Could not apply the result</source>
        <translation>无法应用生成结果</translation>
    </message>
    <message>
        <source>Could not export</source>
        <translation>无法导出</translation>
    </message>
    <message>
        <source>Could not prepare the picture</source>
        <translation>无法预处理图像</translation>
    </message>
    <message>
        <source>Could not save the result</source>
        <translation>无法保存结果</translation>
    </message>
    <message>
        <source>Export prepared input to folder</source>
        <translation>将预处理后的输入导出到文件夹</translation>
    </message>
    <message>
        <source>Exported</source>
        <translation>已导出</translation>
    </message>
    <message>
        <source>Model input: {w}×{h} px</source>
        <translation>模型输入：{w}×{h} px</translation>
    </message>
    <message>
        <source>Only the area {rw}×{rh} at ({rx}, {ry}) is generated.</source>
        <translation>只生成位于 ({rx}, {ry}) 的 {rw}×{rh} 区域。</translation>
    </message>
    <message>
        <source>Open a picture to prepare it.</source>
        <translation>请先打开一张图像。</translation>
    </message>
    <message>
        <source>Paint the area to repaint first: white in the mask, at least 50 % strength (or load a mask).</source>
        <translation>请先涂抹需要重绘的区域：蒙版中的白色，强度至少 50 %（或载入一个蒙版）。</translation>
    </message>
    <message>
        <source>Save Result</source>
        <translation>保存结果</translation>
    </message>
    <message>
        <source>The mask is empty</source>
        <translation>蒙版是空的</translation>
    </message>
    <message>
        <source>The model gets {w}×{h} px, aligned to 16 px by {align}; the masked area is filled with {fill}. The result is blended back with a {f} px feather.</source>
        <translation>模型收到 {w}×{h} px 的输入，通过{align}对齐到 16 px；蒙版区域用{fill}填充。结果将以 {f} px 羽化融合回原图。</translation>
    </message>
    <message>
        <source>The result belongs to a picture of another size; save it instead.</source>
        <translation>此结果属于另一尺寸的图像，请改为保存它。</translation>
    </message>
    <message>
        <source>Wrote input.png, mask.png and prepare.json to {0}</source>
        <translation>已将 input.png、mask.png 和 prepare.json 写入 {0}</translation>
    </message>
    <message>
        <source>a blur of the surroundings</source>
        <translation>周围内容的模糊</translation>
    </message>
    <message>
        <source>cropping</source>
        <translation>裁剪</translation>
    </message>
    <message>
        <source>padding</source>
        <translation>填边</translation>
    </message>
    <message>
        <source>scaling</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>the original pixels</source>
        <translation>原始像素</translation>
    </message>
    <message>
        <source>{0} blended into the original with the soft mask.</source>
        <translation>已用柔和蒙版将 {0} 融合到原图中。</translation>
    </message>
    <message>
        <source>{file} is {gw}×{gh} px, but the prepared input is {w}×{h} px. Choose the image generated from this prepared input.</source>
        <translation>{file} 为 {gw}×{gh} px，而预处理后的输入为 {w}×{h} px。请选择由这份预处理输入生成的图像。</translation>
    </message>
</context>
<context>
    <name>PreparePanel</name>
    <message>
        <source>Align</source>
        <translation>对齐</translation>
    </message>
    <message>
        <source>Blurred</source>
        <translation>模糊填充</translation>
    </message>
    <message>
        <source>Crop to 16 px</source>
        <translation>裁剪到 16 px</translation>
    </message>
    <message>
        <source>Feather</source>
        <translation>羽化</translation>
    </message>
    <message>
        <source>Fill</source>
        <translation>填充</translation>
    </message>
    <message>
        <source>Generate just the mask's bounding box plus padding, at full detail</source>
        <translation>只生成蒙版外接矩形及其外围留白，保留完整细节</translation>
    </message>
    <message>
        <source>Grey (50 %)</source>
        <translation>灰色 (50 %)</translation>
    </message>
    <message>
        <source>None (keep pixels)</source>
        <translation>不填充（保留像素）</translation>
    </message>
    <message>
        <source>Only the masked area</source>
        <translation>仅蒙版区域</translation>
    </message>
    <message>
        <source>Pad to 16 px</source>
        <translation>填边到 16 px</translation>
    </message>
    <message>
        <source>Padding</source>
        <translation>外围留白</translation>
    </message>
    <message>
        <source>Prepare for inference</source>
        <translation>推理预处理</translation>
    </message>
    <message>
        <source>Scale to 16 px</source>
        <translation>缩放到 16 px</translation>
    </message>
    <message>
        <source>Soft edge used when the result is blended back into the original</source>
        <translation>将结果融合回原图时使用的柔和边缘</translation>
    </message>
    <message>
        <source>The model needs sides that are multiples of 16 px. Padding is undone exactly when the result is put back.</source>
        <translation>模型要求边长为 16 px 的倍数。填边会在结果贴回时被精确去除。</translation>
    </message>
    <message>
        <source>What the masked area holds before generation; grey hides the old content</source>
        <translation>生成前蒙版区域的内容；灰色可遮住原有内容</translation>
    </message>
</context>
<context>
    <name>PreparedPreviewDialog</name>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Mask (white = repaint)</source>
        <translation>蒙版（白色 = 重绘）</translation>
    </message>
    <message>
        <source>Prepared input</source>
        <translation>预处理后的输入</translation>
    </message>
</context>
<context>
    <name>ResultDialog</name>
    <message>
        <source>Continue Painting on It</source>
        <translation>在此结果上继续绘制</translation>
    </message>
    <message>
        <source>Replace the picture under the mask with this result</source>
        <translation>用此结果替换蒙版下的图像</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Save As…</source>
        <translation>另存为…</translation>
    </message>
</context>
</TS>
