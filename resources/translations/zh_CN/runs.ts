<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>GenerationPanel</name>
    <message>
        <source>A new run from the selected step: choose its seed, steps, prompt and strength</source>
        <translation>从所选步骤开始一次新的运行：选择它的种子、步数、提示词和强度</translation>
    </message>
    <message>
        <source>New run branched from step {step}; its diffusion starts over.</source>
        <translation>已从第 {step} 步分支出新的运行；它的扩散将从头开始。</translation>
    </message>
    <message>
        <source>Step {step} decoded</source>
        <translation>第 {step} 步已解码</translation>
    </message>
</context>
<context>
    <name>Runs</name>
    <message>
        <source>(no prompt)</source>
        <translation>（无提示词）</translation>
    </message>
    <message>
        <source>A run is in progress; stop it first.</source>
        <translation>有一次运行正在进行；请先停止它。</translation>
    </message>
    <message>
        <source>Branch</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>Branch from step {step}</source>
        <translation>从第 {step} 步分支</translation>
    </message>
    <message>
        <source>Close; the runs stay in the Runs panel</source>
        <translation>关闭；这些运行保留在“运行记录”面板中</translation>
    </message>
    <message>
        <source>Continues from step {step} of {steps}; steps 1–{step} are reused.</source>
        <translation>从第 {step} 步（共 {steps} 步）继续；第 1–{step} 步将被复用。</translation>
    </message>
    <message>
        <source>Diffusion starts over at step 1 of {steps} after the new prompt is encoded; the prepared image is reused.</source>
        <translation>新的提示词编码后，扩散从第 1 步（共 {steps} 步）重新开始；已准备好的图像将被复用。</translation>
    </message>
    <message>
        <source>Diffusion starts over at step 1 of {steps}: a new seed, number of steps or strength changes every step. The prepared image and the prompt's encoding are reused.</source>
        <translation>扩散从第 1 步（共 {steps} 步）重新开始：新的种子、步数或强度会改变每一步。已准备好的图像和提示词的编码将被复用。</translation>
    </message>
    <message>
        <source>Discard the run?</source>
        <translation>丢弃这次运行？</translation>
    </message>
    <message>
        <source>Discard…</source>
        <translation>丢弃…</translation>
    </message>
    <message>
        <source>Everything runs again from the prepared image on.</source>
        <translation>从准备好的图像开始，所有步骤都将重新运行。</translation>
    </message>
    <message>
        <source>Failed after step {step} of {steps}</source>
        <translation>在第 {step} 步（共 {steps} 步）后失败</translation>
    </message>
    <message>
        <source>Finished, {steps} steps</source>
        <translation>已完成，共 {steps} 步</translation>
    </message>
    <message>
        <source>Keep for later</source>
        <translation>以后再说</translation>
    </message>
    <message>
        <source>Mask of the run</source>
        <translation>运行的蒙版</translation>
    </message>
    <message>
        <source>No runs yet. Run all in the Generate tab makes one.</source>
        <translation>还没有运行。在“生成”标签页中点击“全部运行”即可创建一次。</translation>
    </message>
    <message>
        <source>No unfinished runs.</source>
        <translation>没有未完成的运行。</translation>
    </message>
    <message>
        <source>Not started</source>
        <translation>尚未开始</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>种子</translation>
    </message>
    <message>
        <source>Show result</source>
        <translation>显示结果</translation>
    </message>
    <message>
        <source>Starts at step 1 of {steps}; nothing is diffused yet.</source>
        <translation>从第 1 步（共 {steps} 步）开始；尚未进行任何扩散。</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Stopped after step {step} of {steps}</source>
        <translation>在第 {step} 步（共 {steps} 步）后停止</translation>
    </message>
    <message>
        <source>Strength</source>
        <translation>强度</translation>
    </message>
    <message>
        <source>The run cannot be discarded</source>
        <translation>无法丢弃这次运行</translation>
    </message>
    <message>
        <source>The run cannot be opened</source>
        <translation>无法打开这次运行</translation>
    </message>
    <message>
        <source>The run folder {path} goes to the trash (or is deleted where there is none), with its steps and pictures.</source>
        <translation>运行文件夹 {path} 连同其中的步骤和图片将被移到回收站（没有回收站时直接删除）。</translation>
    </message>
    <message>
        <source>These runs stopped before their result. Resume one to continue from its last finished step, with its photo and mask back on the canvas.</source>
        <translation>这些运行在得到结果前停止了。继续其中一次，即可从它最后完成的一步接着运行，并把它的照片和蒙版放回画布。</translation>
    </message>
    <message>
        <source>Unfinished runs</source>
        <translation>未完成的运行</translation>
    </message>
    <message>
        <source>no picture yet</source>
        <translation>还没有图片</translation>
    </message>
    <message>
        <source>seed {seed}</source>
        <translation>种子 {seed}</translation>
    </message>
    <message>
        <source>{count} runs, {unfinished} unfinished</source>
        <translation>共 {count} 次运行，{unfinished} 次未完成</translation>
    </message>
</context>
</TS>
