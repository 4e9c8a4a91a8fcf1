@echo off
rem Sets up Stepwise from the source (virtual environment, dependencies) if needed, then starts
rem it. The first start also builds the engine sd-stage.exe from source once (minutes, with MSVC
rem and the Vulkan SDK; see native\README.md); later starts skip it. Most Windows users want the
rem setup .exe instead (README, "Start the app"): it needs none of this.
setlocal
rem The hints the app prints ("continue with: run.cmd resume DIR") name the command as typed.
if not defined STEPWISE_PROGRAM set "STEPWISE_PROGRAM=%~0"
cd /d "%~dp0"
set PY=py -3.12
if defined STEPWISE_PYTHON set PY=%STEPWISE_PYTHON%
%PY% -c "import sys" >nul 2>&1
if errorlevel 1 (
  echo Stepwise: no Python 3.12 found ^(%PY%^). Install Stepwise with its setup .exe instead ^(README, "Start the app"^), or install Python 3.12 from python.org.
  exit /b 1
)
%PY% scripts\setup_env.py app || exit /b 1
.venv\Scripts\python.exe -m app %*
