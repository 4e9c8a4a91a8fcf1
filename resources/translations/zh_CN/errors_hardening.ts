<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>errors</name>
    <message>
        <source>The diffuse stage's inputs changed since its {count} checkpoints were made (the engine build, a model file or the job's files changed); they are kept, not deleted.</source>
        <translation>扩散阶段的 {count} 个检查点生成之后，其输入已改变（引擎构建、模型文件或任务的文件有变）；这些检查点已保留，没有删除。</translation>
    </message>
    <message>
        <source>Start diffuse over with `resume --start-over {run_dir}` (the checkpoints are deleted then), or branch the run to keep them beside a new one.</source>
        <translation>用 `resume --start-over {run_dir}` 重新开始扩散（届时会删除这些检查点），或从该运行创建分支，在新运行旁保留它们。</translation>
    </message>
    <message>
        <source>{name} holds a character that is not text at position {position}: {character}.</source>
        <translation>{name} 在第 {position} 个位置含有非文本字符：{character}。</translation>
    </message>
    <message>
        <source>Type or paste it again as plain text (UTF-8, no control characters).</source>
        <translation>请以纯文本（UTF-8，无控制字符）重新输入或粘贴。</translation>
    </message>
    <message>
        <source>The job has {count} reference images (--ref-image); the engine takes at most {maximum}.</source>
        <translation>任务有 {count} 张参考图（--ref-image）；引擎最多接受 {maximum} 张。</translation>
    </message>
    <message>
        <source>Remove {extra} of them.</source>
        <translation>请移除其中 {extra} 张。</translation>
    </message>
    <message>
        <source>The {name} {path} holds a {found}, not a {wanted}.</source>
        <translation>{name} {path} 是{found}，而不是{wanted}。</translation>
    </message>
    <message>
        <source>Give that file with {found_flag} and name the {wanted} with {flag}.</source>
        <translation>请用 {found_flag} 指定该文件，并用 {flag} 指定{wanted}。</translation>
    </message>
    <message>
        <source>The output {path} ({flag}) is a folder.</source>
        <translation>输出 {path}（{flag}）是一个文件夹。</translation>
    </message>
    <message>
        <source>Name a PNG file to write, e.g. {example}.</source>
        <translation>请指定要写入的 PNG 文件，例如 {example}。</translation>
    </message>
    <message>
        <source>The output {path} ({flag}) cannot be written: {existing} is a file, not a folder.</source>
        <translation>无法写入输出 {path}（{flag}）：{existing} 是文件，不是文件夹。</translation>
    </message>
    <message>
        <source>Name a PNG file in a folder.</source>
        <translation>请指定某个文件夹中的 PNG 文件。</translation>
    </message>
    <message>
        <source>The output {path} ({flag}) cannot be written: {existing} is read-only.</source>
        <translation>无法写入输出 {path}（{flag}）：{existing} 是只读的。</translation>
    </message>
    <message>
        <source>Name a PNG file in a folder you can write to.</source>
        <translation>请指定一个可写文件夹中的 PNG 文件。</translation>
    </message>
    <message>
        <source>{name} is too long: at least {tokens} tokens with the text encoder's template; it takes at most {maximum}.</source>
        <translation>{name} 太长：加上文本编码器的模板至少有 {tokens} 个词元；最多只能有 {maximum} 个。</translation>
    </message>
    <message>
        <source>Shorten it (about {words} English words fit).</source>
        <translation>请缩短它（大约可容纳 {words} 个英文单词）。</translation>
    </message>
    <message>
        <source>{path} already holds a run.</source>
        <translation>{path} 中已经有一个运行。</translation>
    </message>
    <message>
        <source>Resume it, or choose an empty folder.</source>
        <translation>请继续该运行，或选择一个空文件夹。</translation>
    </message>
    <message>
        <source>The run folder {path} is not empty and holds no run: {entries}.</source>
        <translation>运行文件夹 {path} 不是空的，且其中没有运行：{entries}。</translation>
    </message>
    <message>
        <source>Choose a new or empty folder (--run-dir); Stepwise does not write into a folder of other files.</source>
        <translation>请选择一个新的或空的文件夹（--run-dir）；Stepwise 不会写入存放其他文件的文件夹。</translation>
    </message>
    <message>
        <source>The run folder {path} cannot be read: {reason}.</source>
        <translation>无法读取运行文件夹 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Choose a run folder (--run-dir) you can read and write.</source>
        <translation>请选择一个可读写的运行文件夹（--run-dir）。</translation>
    </message>
    <message>
        <source>The run's {entry} is not a folder ({path}).</source>
        <translation>运行中的 {entry} 不是文件夹（{path}）。</translation>
    </message>
    <message>
        <source>Move that file away (a run keeps its {entry} files in a folder of that name) and try again.</source>
        <translation>请移走该文件（运行把 {entry} 文件放在同名文件夹中），然后重试。</translation>
    </message>
    <message>
        <source>The run's {entry} is a link ({path}); Stepwise never writes through links in a run folder.</source>
        <translation>运行中的 {entry} 是一个链接（{path}）；Stepwise 从不通过运行文件夹中的链接写入。</translation>
    </message>
    <message>
        <source>Replace the link with the real file or folder, or remove it, and try again.</source>
        <translation>请用真实的文件或文件夹替换该链接，或将其删除，然后重试。</translation>
    </message>
    <message>
        <source>The run's lock {path} cannot be opened: {reason}.</source>
        <translation>无法打开运行的锁文件 {path}：{reason}。</translation>
    </message>
    <message>
        <source>Check that the run folder exists and is writable.</source>
        <translation>请检查运行文件夹是否存在且可写。</translation>
    </message>
    <message>
        <source>Remove the link (the run does not need it) and try again.</source>
        <translation>请删除该链接（运行不需要它），然后重试。</translation>
    </message>
    <message>
        <source>The run's {entry} is a folder ({path}), not the lock file.</source>
        <translation>运行中的 {entry} 是一个文件夹（{path}），而不是锁文件。</translation>
    </message>
    <message>
        <source>Remove that folder (it is not part of a run) and try again.</source>
        <translation>请删除该文件夹（它不属于运行），然后重试。</translation>
    </message>
    <message>
        <source>The run folder {folder} cannot be written (read-only): its lock {path} cannot be made.</source>
        <translation>无法写入运行文件夹 {folder}（只读）：无法创建其锁文件 {path}。</translation>
    </message>
    <message>
        <source>Copy the run folder to a writable place and resume it there.</source>
        <translation>请把运行文件夹复制到可写的位置，并在那里继续。</translation>
    </message>
    <message>
        <source>The run {path} is being executed by another Stepwise process.</source>
        <translation>运行 {path} 正由另一个 Stepwise 进程执行。</translation>
    </message>
    <message>
        <source>Wait for it to finish or stop it first.</source>
        <translation>请等待它结束，或先停止它。</translation>
    </message>
    <message>
        <source>The run folder {path} cannot be made: {reason}.</source>
        <translation>无法创建运行文件夹 {path}：{reason}。</translation>
    </message>
    <message>
        <source>The {label} {path} does not exist.</source>
        <translation>{label} {path} 不存在。</translation>
    </message>
    <message>
        <source>The {label} {path} is a folder, not a picture.</source>
        <translation>{label} {path} 是文件夹，不是图片。</translation>
    </message>
    <message>
        <source>Name the picture file itself.</source>
        <translation>请指定图片文件本身。</translation>
    </message>
    <message>
        <source>The {label} {path} is not a regular file (a pipe or a device).</source>
        <translation>{label} {path} 不是普通文件（是管道或设备）。</translation>
    </message>
    <message>
        <source>Save the picture to a file and name that.</source>
        <translation>请把图片保存为文件，并指定该文件。</translation>
    </message>
</context>
</TS>
