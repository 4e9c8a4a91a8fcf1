; Stepwise — per-user Windows installer (NSIS 3, Unicode, x64).
;
;   makensis -DVERSION=0.1.0 -DBUNDLE=LAYOUT -DOUTFILE=dist\Stepwise-0.1.0-setup.exe installer\stepwise.nsi
;   (`python installer/build.py windows` does this; `/D...` instead of `-D...` on Windows)
;
; Installs the layout (installer/windows_bundle.py: Stepwise.exe, stepwise-cli.exe, python\,
; app\, resources\, engine\) to %LOCALAPPDATA%\Programs\Stepwise (no administrator rights),
; a Start-menu entry and an uninstaller registered for "Apps & features". No file is
; associated with Stepwise. Uninstalling removes the program and leaves the user's data
; (%LOCALAPPDATA%\Stepwise: settings, runs, caches, logs, engine builds) unless the user ticks
; "Also delete my data" or runs the uninstaller with /PURGE (silently: Uninstall.exe /S /PURGE).

Unicode true
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel user
SetCompressor /SOLID lzma

!ifndef VERSION
  !define VERSION "0.0.0"
!endif
!ifndef BUNDLE
  !error "define BUNDLE: the layout folder (Stepwise.exe, python\, app\, engine\)"
!endif
!ifndef OUTFILE
  !define OUTFILE "Stepwise-${VERSION}-setup.exe"
!endif

!define APP "Stepwise"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define DATA_DIR "$LOCALAPPDATA\${APP}"

!include "MUI2.nsh"
!include "FileFunc.nsh"
!include "x64.nsh"

; The program's own files (never the user's data, which lives in ${DATA_DIR}).
!macro RemoveProgram
  RMDir /r "$INSTDIR\python"
  RMDir /r "$INSTDIR\app"
  RMDir /r "$INSTDIR\resources"
  RMDir /r "$INSTDIR\engine"
  RMDir /r "$INSTDIR\_internal" ; an older, PyInstaller-made Stepwise
  Delete "$INSTDIR\Stepwise.exe"
  Delete "$INSTDIR\stepwise-cli.exe"
!macroend

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "Software\${APP}" "InstallDir"
BrandingText "${APP} ${VERSION}"

!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\Stepwise.exe"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_COMPONENTS
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString NeedsX64 ${LANG_ENGLISH} "Stepwise needs 64-bit Windows 10 or newer."
LangString NeedsX64 ${LANG_SIMPCHINESE} "Stepwise 需要 64 位 Windows 10 或更高版本。"
LangString DataSection ${LANG_ENGLISH} "Also delete my data (settings, runs, caches)"
LangString DataSection ${LANG_SIMPCHINESE} "同时删除我的数据（设置、运行记录、缓存）"
LangString DataSectionDesc ${LANG_ENGLISH} "Deletes ${DATA_DIR}. Without this, your runs and settings stay for a later install."
LangString DataSectionDesc ${LANG_SIMPCHINESE} "删除 ${DATA_DIR}。不勾选时，运行记录和设置会保留，供以后再次安装使用。"

Function .onInit
  ${IfNot} ${RunningX64}
    MessageBox MB_ICONSTOP "$(NeedsX64)" /SD IDOK
    Abort
  ${EndIf}
  SetShellVarContext current
FunctionEnd

Section "Stepwise" SecApp
  SectionIn RO
  SetOutPath "$INSTDIR"
  ; A reinstall replaces the program whole: no file of an older version is left behind.
  !insertmacro RemoveProgram
  File /r "${BUNDLE}\*.*"
  WriteUninstaller "$INSTDIR\Uninstall.exe"
  CreateShortCut "$SMPROGRAMS\${APP}.lnk" "$INSTDIR\Stepwise.exe" "" "$INSTDIR\Stepwise.exe" 0
  WriteRegStr HKCU "Software\${APP}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "Stepwise"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\Stepwise.exe"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\Uninstall.exe"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\Uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "un.Stepwise" UnSecApp
  SectionIn RO
  Delete "$SMPROGRAMS\${APP}.lnk"
  !insertmacro RemoveProgram
  Delete "$INSTDIR\Uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegKey HKCU "Software\${APP}"
SectionEnd

Section /o "un.$(DataSection)" UnSecData
  RMDir /r "${DATA_DIR}"
SectionEnd

Function un.onInit
  SetShellVarContext current
  ; /PURGE (for silent uninstalls) ticks "Also delete my data".
  ${GetParameters} $R0
  ClearErrors
  ${GetOptions} $R0 "/PURGE" $R1
  ${IfNot} ${Errors}
    SectionSetFlags ${UnSecData} ${SF_SELECTED}
  ${EndIf}
FunctionEnd

!insertmacro MUI_UNFUNCTION_DESCRIPTION_BEGIN
  !insertmacro MUI_DESCRIPTION_TEXT ${UnSecData} "$(DataSectionDesc)"
!insertmacro MUI_UNFUNCTION_DESCRIPTION_END
