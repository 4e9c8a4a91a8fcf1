/* Stepwise.exe (built with -DSTEPWISE_GUI -mwindows: no console) and stepwise-cli.exe (a
 * console program): start the bundled Python on the app, with UTF-8 I/O, and hand back its exit
 * code. The install folder holds python\ (python.org's embeddable CPython with the packages in
 * Lib\site-packages), app\, resources\ and engine\sd-stage.exe (app/engine/locate.py finds it).
 *
 *   Stepwise.exe [ARGS]      -> python\pythonw.exe -I -X utf8 -m app [ARGS]
 *   stepwise-cli.exe [ARGS]  -> python\python.exe  -I -X utf8 -m app [ARGS]
 *
 * -I: the user's PYTHONPATH / PYTHONHOME / user site cannot change what runs; -X utf8: stdout,
 * stderr and files default to UTF-8 whatever the ANSI code page (cp1252, cp936) is.
 * Cross-compiled on Linux by installer/build.py windows (mingw-w64, -municode).
 */
#include <windows.h>
#include <stdio.h>
#include <wchar.h>

#define MAX_CMD 32768

/* The command line after the program's own name (argv[0] may be quoted). */
static const wchar_t *arguments(const wchar_t *line) {
    if (*line == L'"') {
        line++;
        while (*line && *line != L'"') line++;
        if (*line) line++;
    } else {
        while (*line && *line != L' ' && *line != L'\t') line++;
    }
    while (*line == L' ' || *line == L'\t') line++;
    return line;
}

static void complain(const wchar_t *what, const wchar_t *path) {
    wchar_t text[1024];
    _snwprintf(text, 1023, L"Stepwise cannot start: %ls\n%ls\nReinstall Stepwise.", what, path);
    text[1023] = 0;
#ifdef STEPWISE_GUI
    MessageBoxW(NULL, text, L"Stepwise", MB_ICONERROR | MB_OK);
#else
    fwprintf(stderr, L"%ls\n", text);
#endif
}

static int launch(const wchar_t *python_name) {
    static wchar_t folder[MAX_PATH * 2], python[MAX_PATH * 2], cmd[MAX_CMD];
    DWORD n = GetModuleFileNameW(NULL, folder, MAX_PATH * 2);
    if (n == 0 || n >= MAX_PATH * 2) return 120;
    wchar_t *slash = wcsrchr(folder, L'\\');
    if (slash) *slash = 0;
    _snwprintf(python, MAX_PATH * 2 - 1, L"%ls\\python\\%ls", folder, python_name);
    if (GetFileAttributesW(python) == INVALID_FILE_ATTRIBUTES) {
        complain(L"the bundled Python is missing:", python);
        return 121;
    }
    int written = _snwprintf(cmd, MAX_CMD - 1, L"\"%ls\" -I -X utf8 -m app %ls", python,
                             arguments(GetCommandLineW()));
    if (written < 0) return 122;
    cmd[MAX_CMD - 1] = 0;
    STARTUPINFOW si;
    PROCESS_INFORMATION pi;
    ZeroMemory(&si, sizeof si);
    si.cb = sizeof si;
    ZeroMemory(&pi, sizeof pi);
#ifndef STEPWISE_GUI
    /* Ctrl+C reaches every process on the console: the app handles it (suspends a run and
       exits with its own code); this launcher waits for that code instead of dying first. */
    SetConsoleCtrlHandler(NULL, TRUE);
#endif
    if (!CreateProcessW(python, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) {
        complain(L"could not start", python);
        return 123;
    }
    CloseHandle(pi.hThread);
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    return (int)code;
}

#ifdef STEPWISE_GUI
int WINAPI wWinMain(HINSTANCE instance, HINSTANCE previous, PWSTR line, int show) {
    (void)instance; (void)previous; (void)line; (void)show;
    return launch(L"pythonw.exe");
}
#else
int wmain(void) { return launch(L"python.exe"); }
#endif
