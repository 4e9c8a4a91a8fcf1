@echo off
rem Builds the Windows bundle (dist\Stepwise\) and the installer (dist\Stepwise-VERSION-setup.exe)
rem on Windows: needs Python 3.12 (py launcher), a built engine (python native\build.py, with
rem MSVC + the Vulkan SDK, see native\README.md) and NSIS 3 (makensis on PATH) for the installer.
setlocal
cd /d "%~dp0\.."
set PY=py -3.12
if defined STEPWISE_PYTHON set PY=%STEPWISE_PYTHON%
if not exist .venv\Scripts\python.exe %PY% -m venv .venv || exit /b 1
.venv\Scripts\python.exe -m pip install --quiet -e .[installer] || exit /b 1
.venv\Scripts\python.exe installer\build.py %* || exit /b 1
.venv\Scripts\python.exe installer\build.py smoke || exit /b 1
.venv\Scripts\python.exe installer\build.py nsis --bundle dist\Stepwise || exit /b 1
